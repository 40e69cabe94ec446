# Test double of nixpkgs for evaluating this repository's flake offline: image builders record
# what they receive (as `recorded`), small builders really build with the host's /bin/sh, and
# tools the checks call (diff, docker-compose) are the host's.
{
  description = "stub nixpkgs for tests/nix";
  outputs =
    { self }:
    {
      legacyPackages = builtins.listToAttrs (
        map
          (system: {
            name = system;
            value = import ./pkgs.nix { inherit system; };
          })
          [
            "x86_64-linux"
            "aarch64-linux"
          ]
      );
    };
}
