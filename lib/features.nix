# The optional features, from schema/box-facts.json: which manifest setting turns each on, the
# security exception it needs (its name, as in the manifest rules), the programmes it adds (with
# their fixed ports), the packages the image gains and whether this build provides it. Enabling a
# feature adds exactly this entry — nothing else in lib/ names features.
let
  facts = import ./facts.nix;
  pathsLib = import ./paths.nix;
in
rec {
  /**
    Every feature, keyed by the name of its [security.exceptions.<name>] entry.
    - bin: directory of the box's own commands (see lib/paths.nix)
    - runtime: the runtime paths (lib/paths.nix runtimePaths; default: the image layout)
    Each entry: setting (how it reads in TOML), enabled (manifest → bool), programs (programme
    records, see lib/programs.nix, argv placeholders substituted), packages (nixpkgs attribute
    paths, resolved by lib/image.nix), available, and for a feature this build lacks, reason and
    instead (rule E036 refuses it; lib/ still renders it so the wiring is ready when it ships).
  */
  featureTable =
    {
      bin ? pathsLib.image.bin,
      runtime ? pathsLib.runtimePaths { },
    }:
    builtins.mapAttrs (
      _: f:
      f
      // {
        setting = facts.settingText f.setting;
        enabled = m: facts.at { path = f.setting.key; attrs = m; } == f.setting.value;
        programs = map (
          p:
          p
          // {
            argv = facts.substituteArgv {
              inherit (p) argv port;
              inherit bin runtime;
            };
          }
        ) f.programs;
      }
    ) facts.features;

  /**
    The enabled features of a manifest, as a list of { name; ...entry } in name order.
    - manifest: a normalized manifest
    - bin, runtime: as for featureTable
  */
  enabledFeatures =
    {
      manifest,
      bin ? pathsLib.image.bin,
      runtime ? pathsLib.runtimePaths { },
    }:
    let
      table = featureTable { inherit bin runtime; };
    in
    builtins.filter (f: f.enabled manifest) (
      map (name: table.${name} // { inherit name; }) (builtins.attrNames table)
    );
}
