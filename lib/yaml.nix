# YAML as data → text, block style. Every string is written as a JSON string (a valid YAML
# double-quoted scalar, escaped by builtins.toJSON), so no value is ever hand-escaped.
let
  inherit (builtins)
    attrNames
    concatLists
    concatStringsSep
    isAttrs
    isBool
    isFloat
    isInt
    isList
    isString
    match
    toJSON
    ;

  scalar =
    v:
    if v == null then
      "null"
    else if isBool v then
      (if v then "true" else "false")
    else if isInt v || isFloat v || isString v then
      toJSON v
    else
      throw "yaml.toYAML: cannot write a value of type ${builtins.typeOf v}";

  # Plain keys stay bare; anything else is quoted.
  key = k: if match "[A-Za-z_][A-Za-z0-9_.-]*" k != null then k else toJSON k;

  isEmpty = v: v == { } || v == [ ];
  isCollection = v: (isAttrs v || isList v) && !isEmpty v;

  # Lines of `v` at indentation `pad`.
  lines =
    pad: v:
    if isAttrs v && v != { } then
      concatLists (
        map (
          k:
          let
            x = v.${k};
          in
          if isCollection x then
            [ "${pad}${key k}:" ] ++ lines (pad + "  ") x
          else
            [ "${pad}${key k}: ${inline x}" ]
        ) (attrNames v)
      )
    else if isList v && v != [ ] then
      concatLists (
        map (
          x:
          if isCollection x then
            let
              inner = lines (pad + "  ") x;
              first = builtins.head inner;
              # "- " replaces the first line's indentation.
              firstTrimmed = builtins.substring (builtins.stringLength pad + 2) (builtins.stringLength first) first;
            in
            [ "${pad}- ${firstTrimmed}" ] ++ builtins.tail inner
          else
            [ "${pad}- ${inline x}" ]
        ) v
      )
    else
      [ "${pad}${inline v}" ];

  inline =
    v:
    if v == { } then
      "{}"
    else if v == [ ] then
      "[]"
    else
      scalar v;
in
{
  /**
    YAML text of `value` (keys in sorted order), after `header` lines written as # comments.
    - value: attrsets, lists, strings, numbers, booleans and null
    - header: comment lines written first (default: none)
  */
  toYAML =
    {
      value,
      header ? [ ],
    }:
    concatStringsSep "\n" (map (l: "# ${l}") header ++ lines "" value) + "\n";
}
