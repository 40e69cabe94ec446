# The stub package set for one system (see flake.nix).
{ system }:
let
  # A real derivation built by the host's /bin/sh, with nixpkgs' `set -e` semantics.
  run =
    name: env: script:
    derivation (
      env
      // {
        inherit name system;
        builder = "/bin/sh";
        args = [
          "-c"
          ''
            set -e
            ${script}''
        ];
        PATH = "/usr/local/bin:/usr/bin:/bin";
      }
    );

  # A package: an empty output with a bin/ directory.
  pkg = name: run name { } "mkdir -p $out/bin";

  # A tool of the host (its files under /usr), for checks that call it.
  host = name: {
    inherit name;
    outPath = "/usr";
  };

  # A builder that records its arguments and builds a small JSON file of them.
  recorder =
    builder: args:
    run "stub-${builder}" { recordedJson = builtins.toJSON (removeAttrs args [ "fakeRootCommands" ]); } ''
      printf '%s' "$recordedJson" > $out
    ''
    // {
      recorded = args;
    };

  # The application: with --impure and AGENTBOX_STUB_APP=<dir with bin/agentbox>, that
  # directory (so checks run the real validator); otherwise a package whose CLI fails loudly.
  hostApp = builtins.getEnv "AGENTBOX_STUB_APP";
  # Other npm packages (the agent CLIs): an output named after their pname that depends on their
  # sources and npm dependencies, so evaluating it checks what nixpkgs would (the lock, its entries).
  buildNpmPackage =
    args:
    (
      if (args.pname or "agentbox") != "agentbox" then
        run args.pname { inputs = builtins.toJSON { inherit (args) src npmDeps; }; } "mkdir -p $out/bin"
      else if hostApp != "" then
        {
          name = "agentbox";
          outPath = hostApp;
        }
      else
        run "agentbox" { } ''
          mkdir -p $out/bin
          printf '#!/bin/sh\necho "stub nixpkgs: set AGENTBOX_STUB_APP and use --impure to run the real CLI" >&2\nexit 1\n' > $out/bin/agentbox
          chmod +x $out/bin/agentbox
        ''
    )
    // {
      recorded = args;
    };
in
{
  inherit system;
  buildNpmPackage = {
    __functor = _: buildNpmPackage;
    override = _: buildNpmPackage;
  };
  importNpmLock = {
    __functor = _: args: recorder "importNpmLock" args;
    npmConfigHook = pkg "npm-config-hook";
  };
  runCommand = run;
  writeText =
    name: text:
    run name {
      inherit text;
      passAsFile = [ "text" ];
    } ''cp "$textPath" $out'';
  writeTextDir =
    path: text:
    run (baseNameOf path) {
      inherit text path;
      passAsFile = [ "text" ];
    } ''mkdir -p "$out/$(dirname "$path")"; cp "$textPath" "$out/$path"'';
  writeShellScriptBin =
    name: text:
    run name {
      inherit text;
      passAsFile = [ "text" ];
    } ''mkdir -p $out/bin; { echo '#!/bin/sh'; cat "$textPath"; } > $out/bin/${name}; chmod +x $out/bin/${name}'';
  buildEnv = args: recorder "buildEnv" args;
  stdenv = {
    mkDerivation = args: recorder "mkDerivation" args;
    cc.cc.lib = pkg "gcc-lib";
  };
  autoPatchelfHook = pkg "auto-patchelf-hook";
  # glibc's static archive (an output of glibc in nixpkgs), for the statically linked launcher.
  glibc.static = pkg "glibc-static";
  mkShell = args: recorder "mkShell" args;
  dockerTools.buildLayeredImage = args: recorder "buildLayeredImage" args;

  nodejs_20 = pkg "nodejs-20";
  nodejs_22 = pkg "nodejs-22";
  python3 = pkg "python3";
  python3Packages.supervisor = pkg "supervisor";
  tini = pkg "tini";
  bash = pkg "bash";
  coreutils = pkg "coreutils";
  bubblewrap = pkg "bubblewrap";
  cacert = pkg "cacert";
  git = pkg "git";
  curl = pkg "curl";
  gnugrep = pkg "gnugrep";
  gnused = pkg "gnused";
  findutils = pkg "findutils";

  # Packages a test manifest's [agents] packages names.
  ripgrep = pkg "ripgrep";
  python3Packages.pytest = pkg "pytest";
  nix = pkg "nix";
  nixfmt = pkg "nixfmt";
  diffutils = host "diffutils";
  docker-compose = host "docker-compose";

  # Feature packages (lib/features.nix).
  xorg.xorgserver = pkg "xorg-server";
  x11vnc = pkg "x11vnc";
  code-server = pkg "code-server";
  playwright-test = pkg "playwright-test";
  playwright-driver.browsers = pkg "playwright-browsers";
  colmap = pkg "colmap";
}
