{
  description = "Agentbox: one agentbox.toml compiled into a hardened container image, docker-compose.yml and supervisord.conf";

  inputs = {
    nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";
    flake-utils.url = "github:numtide/flake-utils";
    nix2container = {
      url = "github:nlewo/nix2container";
      inputs.nixpkgs.follows = "nixpkgs";
    };
  };

  # Thin wiring only: every decision lives in lib/ (pure data and serializers) and lib/image.nix.
  outputs =
    {
      self,
      nixpkgs,
      flake-utils,
      nix2container,
    }:
    let
      agentboxLib = import ./lib;
      version = (builtins.fromJSON (builtins.readFile ./package.json)).version;
      revision = self.rev or null;

      # The application's sources: what `npm ci` and `tsc` need, nothing generated or local.
      src = builtins.path {
        name = "agentbox-src";
        path = ./.;
        filter =
          path: type:
          !(builtins.elem (baseNameOf path) [
            "node_modules"
            "dist"
            ".tap"
            "coverage"
            ".agentbox"
            "result"
          ]);
      };

      # Golden files: tests/golden/<name>/ rendered from tests/fixtures/manifests/<name>.toml
      # exactly as `node dist/scripts/cli/render-golden.js` renders them.
      fixtureNames = map (f: builtins.substring 0 (builtins.stringLength f - 5) f) (
        builtins.filter (f: builtins.match ".*\\.toml" f != null) (
          builtins.attrNames (builtins.readDir ./tests/fixtures/manifests)
        )
      );
      goldenRender =
        name:
        agentboxLib.renderBox {
          manifestText = builtins.readFile (./tests/fixtures/manifests + "/${name}.toml");
          source = "${name}.toml";
          version = "0.0.0";
          manifestHostPath = "../../fixtures/manifests/${name}.toml";
          workspaceHostPath = "../../fixtures/manifests/workspace";
        };
      # Every target's files: compose, kubernetes.yaml, agent-sandbox.yaml.
      goldenTargets = name: builtins.foldl' (a: b: a // b) { } (builtins.attrValues (goldenRender name).targets);
    in
    {
      # The pure library (builtins only), for other flakes that render their own boxes.
      lib = agentboxLib;
    }
    // flake-utils.lib.eachSystem [ "x86_64-linux" "aarch64-linux" ] (
      system:
      let
        pkgs = nixpkgs.legacyPackages.${system};
        images = import ./lib/image.nix {
          inherit pkgs;
          nix2container = nix2container.packages.${system}.nix2container;
        };
        launcher = images.sandboxLauncher { inherit src version; };
        app = images.managementApi { inherit src version launcher; };
        box = images.mkBox {
          inherit app version revision;
          manifestFile = ./agentbox.toml;
        };
        nixForRender = pkgs.nix;
        cli =
          name: args:
          pkgs.writeShellScriptBin "agentbox-${name}" ''
            export PATH=${nixForRender}/bin:$PATH
            exec ${app}/bin/agentbox ${args} "$@"
          '';
        libFailures = agentboxLib.runTests { tests = import ./lib/tests { lib = agentboxLib; }; };
        goldenFiles = builtins.concatMap (
          name:
          map (file: {
            golden = ./tests/golden + "/${name}/${file}";
            rendered = pkgs.writeText "${name}-${file}" (goldenTargets name).${file};
            label = "tests/golden/${name}/${file}";
          }) (builtins.attrNames (goldenTargets name))
        ) fixtureNames;
      in
      {
        packages = {
          default = box.image;
          image = box.image;
          image-n2c = box.imageN2c;
          compose = box.compose;
          supervisord-conf = box.supervisordConf;
          # kubernetes.yaml of agentbox.toml (agentbox render --target kubernetes).
          k8s = box.k8s;
          management-api = app;
          sandbox-launcher = launcher;
        };

        checks = {
          # The TypeScript validator on agentbox.toml: an invalid manifest fails here.
          manifest = box.validatedManifest;
          # lib/tests/: every { expr; expected; } pair of every topic.
          lib-tests = pkgs.runCommand "agentbox-lib-tests" { failures = builtins.toJSON libFailures; } ''
            if [ "$failures" != "[]" ]; then
              echo "lib/tests failures: $failures"
              exit 1
            fi
            touch $out
          '';
          # The checked-in golden files equal what lib/ renders now.
          golden = pkgs.runCommand "agentbox-golden" { } ''
            status=0
            ${builtins.concatStringsSep "\n" (
              map (g: ''${pkgs.diffutils}/bin/diff -u ${g.golden} ${g.rendered} || { echo "stale: ${g.label}"; status=1; }'') goldenFiles
            )}
            [ "$status" = 0 ] && touch $out
            exit $status
          '';
          # docker compose accepts the generated file.
          compose = pkgs.runCommand "agentbox-compose-valid" { } ''
            cp ${box.compose} docker-compose.yml
            ${pkgs.docker-compose}/bin/docker-compose -f docker-compose.yml config -q
            touch $out
          '';
        };

        apps = {
          validate = {
            type = "app";
            program = "${cli "validate" "config validate"}/bin/agentbox-validate";
          };
          render = {
            type = "app";
            program = "${cli "render" "render"}/bin/agentbox-render";
          };
        };

        devShells.default = pkgs.mkShell {
          packages = [
            images.nodejs
            pkgs.nix
            pkgs.python3Packages.supervisor
            pkgs.docker-compose
            pkgs.nixfmt
          ];
        };

        formatter = pkgs.nixfmt;
      }
    );
}
