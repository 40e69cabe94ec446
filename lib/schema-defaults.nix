# Applies the defaults of a JSON Schema to a value exactly as Ajv's `useDefaults` does, so Nix and
# TypeScript turn one manifest into the same normalized JSON. No default is written here: every
# one is read from the schema. Keys the schema forbids are refused with their JSON pointer.
let
  inherit (builtins)
    attrNames
    concatStringsSep
    filter
    genList
    head
    isAttrs
    isList
    length
    listToAttrs
    mapAttrs
    removeAttrs
    replaceStrings
    ;
  strings = import ./strings.nix;

  defsPrefix = "#/$defs/";

  # One JSON-pointer segment (RFC 6901 escaping).
  segment = key: replaceStrings [ "~" "/" ] [ "~0" "~1" ] key;
in
rec {
  /**
    A schema node with its local `$ref` followed; the referring node's own keywords (for example
    `description` or `default`) win over the target's, as in JSON Schema 2020-12.
    - root: the whole schema (holds `$defs`)
    - node: the node to resolve
  */
  resolveRef =
    { root, node }:
    if !(node ? "$ref") then
      node
    else
      let
        ref = node."$ref";
        name =
          if strings.hasPrefix { prefix = defsPrefix; string = ref; } then
            strings.removePrefix { prefix = defsPrefix; string = ref; }
          else
            throw "schema-defaults.resolveRef: only local references (${defsPrefix}<name>) are supported, not \"${ref}\"";
        target =
          root."$defs".${name} or (throw "schema-defaults.resolveRef: unresolved reference \"${ref}\"");
      in
      resolveRef {
        inherit root;
        node = target;
      }
      // removeAttrs node [ "$ref" ];

  /**
    `value` with the schema's defaults filled in at every depth.

    Follows Ajv's `useDefaults`: for an object, each property missing from the value whose
    property schema (as written, before `$ref`) has a `default` gets that default, and then every
    property (given or defaulted) is visited with its own schema, so defaults nest. Values of
    `additionalProperties` schemas and array `items` are visited the same way. Only objects get
    defaults; anything else is returned unchanged.

    Also refuses what would make the result meaningless: a key where `additionalProperties` is
    false, and a missing `required` key (full validation is the TypeScript validator's job).
    - root: the whole schema, e.g. `builtins.fromJSON (builtins.readFile ../schema/agentbox.schema.json)`
    - value: the document (for a manifest, what `builtins.fromTOML` returned)
    - node: the schema node describing `value` (default: `root`)
    - pointer: the JSON pointer of `value`, used in error messages (default: the document root)
  */
  applyDefaults =
    {
      root,
      value,
      node ? root,
      pointer ? "",
    }:
    let
      n = resolveRef { inherit root node; };
      at = key: "${pointer}/${segment key}";
    in
    if isAttrs value then
      let
        props = n.properties or { };
        additional = n.additionalProperties or true;
        unknown = filter (k: !(props ? ${k})) (attrNames value);
        missing = filter (k: !(value ? ${k})) (n.required or [ ]);
        defaulted = filter (k: !(value ? ${k}) && props.${k} ? default) (attrNames props);
        filled =
          listToAttrs (
            map (k: {
              name = k;
              value = props.${k}.default;
            }) defaulted
          )
          // value;
        visit =
          k: v:
          if props ? ${k} then
            applyDefaults {
              inherit root;
              value = v;
              node = props.${k};
              pointer = at k;
            }
          else if isAttrs additional then
            applyDefaults {
              inherit root;
              value = v;
              node = additional;
              pointer = at k;
            }
          else
            v;
      in
      if additional == false && unknown != [ ] then
        throw "schema-defaults.applyDefaults: unknown key ${at (head unknown)} (allowed here: ${concatStringsSep ", " (attrNames props)}); run `agentbox config validate` for the full report"
      else if missing != [ ] then
        throw "schema-defaults.applyDefaults: ${pointer} lacks the required key \"${head missing}\"; run `agentbox config validate` for the full report"
      else
        mapAttrs visit filled
    else if isList value && n ? items then
      genList (
        i:
        applyDefaults {
          inherit root;
          value = builtins.elemAt value i;
          node = n.items;
          pointer = "${pointer}/${toString i}";
        }
      ) (length value)
    else
      value;
}
