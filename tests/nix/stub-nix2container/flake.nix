# Test double of nlewo/nix2container: buildImage and buildLayer record what they receive.
{
  description = "stub nix2container for tests/nix";
  inputs.nixpkgs.url = "github:NixOS/nixpkgs";
  outputs =
    { self, nixpkgs }:
    let
      forSystem =
        system:
        let
          record =
            builder: args:
            derivation {
              name = "stub-${builder}";
              inherit system;
              builder = "/bin/sh";
              args = [
                "-c"
                "printf '%s' \"$recordedJson\" > $out"
              ];
              recordedJson = builtins.toJSON args;
            }
            // {
              recorded = args;
            };
        in
        {
          nix2container = {
            buildImage = record "nix2container-image";
            buildLayer = record "nix2container-layer";
          };
        };
    in
    {
      packages = builtins.listToAttrs (
        map
          (system: {
            name = system;
            value = forSystem system;
          })
          [
            "x86_64-linux"
            "aarch64-linux"
          ]
      );
    };
}
