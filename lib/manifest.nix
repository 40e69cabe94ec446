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
    Hex sha256 of the canonical JSON (sorted keys, no whitespace) of a normalized manifest; equal
    to the TypeScript loader's `sha256` (builtins.toJSON sorts keys the same way).
    - manifest: a normalized manifest
  */
  manifestSha256 = { manifest }: builtins.hashString "sha256" (builtins.toJSON manifest);
}
