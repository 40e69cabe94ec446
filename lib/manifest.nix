# Manifest loading: agentbox.toml → the normalized manifest (every schema default applied), the
# same value the TypeScript loader produces, and its canonical sha256.
let
  schemaDefaults = import ./schema-defaults.nix;
in
rec {
  /** The manifest schema, read from the one file that defines shape and defaults. */
  schema = builtins.fromJSON (builtins.readFile ../schema/agentbox.schema.json);

  /**
    The normalized manifest of a TOML document.
    - text: the TOML source (give this or `file`)
    - file: a path to read the TOML source from
    - root: the JSON Schema to normalize against (default: schema/agentbox.schema.json)
  */
  loadManifest =
    {
      text ? null,
      file ? null,
      root ? schema,
    }:
    let
      source =
        if text != null then
          text
        else if file != null then
          builtins.readFile file
        else
          throw "manifest.loadManifest: give the manifest as `text` or `file`";
      raw = builtins.fromTOML source;
    in
    schemaDefaults.applyDefaults {
      inherit root;
      value = raw;
    };

  /**
    Canonical JSON (sorted keys, no whitespace) of a value, byte-equal to JSON.stringify with
    sorted keys (management-api/src/manifest/canonical-json.ts): builtins.toJSON sorts keys the
    same way but writes backspace and form feed as \u0008 and \u000c where JavaScript writes
    \b and \f. Matching "\\" first keeps an escaped backslash followed by "u0008" intact.
    (Floats are printed by Nix with 6 significant digits; `agentbox render` refuses a manifest
    whose two normalizations differ.)
    - value: any JSON-representable value
  */
  canonicalJson =
    { value }:
    builtins.replaceStrings [ "\\\\" "\\u0008" "\\u000c" ] [ "\\\\" "\\b" "\\f" ] (
      builtins.toJSON value
    );

  /**
    Hex sha256 of the canonical JSON of a normalized manifest; equal to the TypeScript loader's
    `sha256`.
    - manifest: a normalized manifest
  */
  manifestSha256 = { manifest }: builtins.hashString "sha256" (canonicalJson { value = manifest; });
}
