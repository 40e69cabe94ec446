# The box's facts — features, programmes, paths, image layout, slots — read from
# schema/box-facts.json, the file management-api/src/box-facts.ts imports too: nothing in lib/
# writes one of them again (tests/unit/box-facts-sources.test.ts checks).
let
  inherit (builtins)
    attrNames
    concatStringsSep
    foldl'
    fromJSON
    readFile
    replaceStrings
    toJSON
    ;
  data = fromJSON (readFile ../schema/box-facts.json);
in
data
// {
  /**
    The value at `path` (a list of keys) of `attrs`, e.g. [ "api" "port" ] of a manifest.
    - path: the keys, outermost first
    - attrs: the attrset to read
  */
  at =
    { path, attrs }:
    foldl' (
      acc: key: acc.${key} or (throw "facts.at: no ${concatStringsSep "." path} in the given attrset")
    ) attrs path;

  /**
    How a setting reads in TOML, e.g. `features.gpu = "cuda"` (the rules' messages say the same).
    - setting: { key; value; } from the facts file
  */
  settingText = setting: "${concatStringsSep "." setting.key} = ${toJSON setting.value}";

  /**
    `argv` with its placeholders replaced: @bin@, @port@, @stateDir@, @workspaceDir@.
    - argv: a programme's argv from the facts file
    - bin: directory of the box's own commands
    - port: the programme's port (0: none)
    - runtime: runtime paths (lib/paths.nix runtimePaths)
  */
  substituteArgv =
    {
      argv,
      bin,
      port ? 0,
      runtime,
    }:
    map (replaceStrings [ "@bin@" "@port@" "@stateDir@" "@workspaceDir@" ] [
      bin
      (toString port)
      runtime.stateDir
      runtime.workspaceDir
    ]) argv;

  /** Names of the programmes the box itself runs or reserves (box, feature and alsoReserved ones). */
  reservedProgramNames =
    attrNames data.programs.box
    ++ builtins.concatMap (f: map (p: p.name) data.features.${f}.programs) (attrNames data.features)
    ++ data.programs.alsoReserved;
}
