# The packages of a box, built with nixpkgs: the agentbox application (importNpmLock: no hash
# computed online), the validated manifest, the generated configs, and the container image
# (dockerTools.buildLayeredImage for `docker load`; nix2container when given). Everything the
# image says about itself comes from the pure data in lib/ (image-config.nix, box.nix).
{
  # nixpkgs for the target system.
  pkgs,
  # nix2container's `nix2container` attribute (packages.<system>.nix2container), or null.
  nix2container ? null,
}:
let
  agentboxLib = import ./default.nix;
  npmLock = import ./npm-lock.nix;
  agentTools = import ./agent-tools.nix;
  pathsLib = import ./paths.nix;
  facts = import ./facts.nix;
  img = pathsLib.image;
  runtime = pathsLib.runtimePaths { };

  # Mount points of the read-only root (relative to it): the baseline tmpfs paths, and the state
  # volume and workspace, which the box's user owns because it writes there.
  relative = p: builtins.substring 1 (builtins.stringLength p) p;

  # The sandbox launcher's file name (the facts file names its source and place in the app).
  launcherName = baseNameOf facts.image.sandboxLauncher.binary;
  ownedDirs = map relative [
    runtime.stateDir
    runtime.workspaceDir
  ];
  mountDirs = map relative (builtins.attrNames facts.baseline.tmpfs) ++ ownedDirs ++ [ "usr/bin" ];

  # An attribute path (list of names) of pkgs, with an error naming it and where it was asked for when absent.
  pkgFrom =
    source: path:
    builtins.foldl' (
      acc: name: acc.${name} or (throw "image.nix: nixpkgs has no ${builtins.concatStringsSep "." path} (named in ${source})")
    ) pkgs path;
  pkgAt = pkgFrom "schema/box-facts.json";
in
rec {
  /**
    Node.js for the box: nodejs_20 when this nixpkgs still evaluates it (not removed or marked
    insecure), else nodejs_22 (the project needs Node >= 20.19).
  */
  nodejs =
    let
      candidate = builtins.tryEval (
        let
          n = pkgs.nodejs_20 or null;
        in
        if n == null then null else builtins.seq n.drvPath n
      );
    in
    if candidate.success && candidate.value != null then candidate.value else pkgs.nodejs_22;

  /**
    The agent sandbox launcher: the C files beside image.sandboxLauncher.source (libc and kernel
    headers only, no libseccomp), compiled with the pinned stdenv and linked statically; the application carries it at
    image.sandboxLauncher.binary.
    - src: the source tree (holds image.sandboxLauncher.source)
    - version: the package version
  */
  sandboxLauncher =
    { src, version }:
    pkgs.stdenv.mkDerivation {
      pname = launcherName;
      inherit version;
      dontUnpack = true;
      # Linked statically: every spawn execs the launcher, and an exec without the dynamic loader is shorter.
      buildInputs = [ pkgs.glibc.static ];
      buildPhase = ''
        runHook preBuild
        $CC -O2 -static -Wall -Wextra -Werror -o ${launcherName} ${src}/${dirOf facts.image.sandboxLauncher.source}/*.c
        runHook postBuild
      '';
      installPhase = ''
        runHook preInstall
        install -D -m 0755 ${launcherName} $out/bin/${launcherName}
        runHook postInstall
      '';
      meta.mainProgram = launcherName;
    };

  /**
    The agentbox application: compiled TypeScript (`npm run build`), production node_modules,
    schema, lib and the box's commands. Layout under $out/opt/agentbox (the image's /opt/agentbox): dist/,
    node_modules/, package.json, schema/, lib/, config/, and bin -> config/bin (the commands the
    generated supervisord.conf runs). $out/bin/agentbox is the CLI.
    - src: the source tree (package.json, package-lock.json, tsconfig.json, sources)
    - version: the package version
    - launcher: the sandbox launcher package (default: sandboxLauncher of the same source)
  */
  managementApi =
    {
      src,
      version,
      launcher ? sandboxLauncher { inherit src version; },
    }:
    let
      lock = npmLock.withRegistryResolved {
        packageLock = builtins.fromJSON (builtins.readFile (src + "/package-lock.json"));
      };
      # The CLI entry point as package.json declares it.
      cliEntry = (builtins.fromJSON (builtins.readFile (src + "/package.json"))).bin.agentbox;
    in
    (pkgs.buildNpmPackage.override { inherit nodejs; }) {
      pname = "agentbox";
      inherit version src;
      npmDeps = pkgs.importNpmLock {
        npmRoot = src;
        packageLock = lock;
      };
      npmConfigHook = pkgs.importNpmLock.npmConfigHook;
      # node-gyp compiles native modules (better-sqlite3) from source.
      nativeBuildInputs = [ pkgs.python3 ];
      # The project's own build (tsc, then the CLI bundle); `npm run build` is the one definition.
      buildPhase = ''
        runHook preBuild
        npm run build
        runHook postBuild
      '';
      installPhase = ''
        runHook preInstall
        npm prune --omit=dev --no-save --offline --no-audit --no-fund
        app=$out${img.appDir}
        mkdir -p "$app" "$out/bin"
        cp -r ${builtins.concatStringsSep " " facts.image.app} "$app/"
        if [ -d config ]; then cp -r config "$app/"; else mkdir -p "$app/config/bin"; fi
        ln -s config/bin "$out${img.bin}"
        install -D -m 0755 ${launcher}/bin/${launcherName} "$app/${facts.image.sandboxLauncher.binary}"
        printf '#!/bin/sh\nexec %s %s "$@"\n' "${nodejs}/bin/node" "$app/${cliEntry}" > "$out/bin/agentbox"
        chmod +x "$out/bin/agentbox"
        runHook postInstall
      '';
      meta.mainProgram = "agentbox";
    };

  /**
    The npm agent CLIs of [agents] npm, baked from agents.lock.json (a fixed-output fetch per
    tarball by its integrity, through importNpmLock: no network at run time, no hash computed
    online). node_modules under $out/lib/agentbox/agent-clis; each listed package's commands in
    $out/bin, which joins the image's /bin (agents' PATH). Native binaries are patched to the
    image's loader (autoPatchelfHook); nothing is stripped, since a Bun-compiled executable
    (Claude Code) carries its program after the ELF image.
    - manifest: the normalized manifest
    - lock: the parsed agents.lock.json (checked against the manifest)
  */
  agentClis =
    { manifest, lock }:
    let
      project = agentTools.lockProject { inherit manifest; };
      packageLock = npmLock.withRegistryResolved {
        packageLock = agentTools.forSystem {
          lock = agentTools.checkedLock { inherit manifest lock; };
          inherit (pkgs) system;
        };
      };
      names = builtins.attrNames project.dependencies;
      src = pkgs.runCommand "agentbox-agent-clis-src" {
        project = builtins.toJSON project;
        lock = builtins.toJSON packageLock;
        passAsFile = [
          "project"
          "lock"
        ];
      } ''
        mkdir -p $out
        cp "$projectPath" $out/package.json
        cp "$lockPath" $out/package-lock.json
      '';
    in
    (pkgs.buildNpmPackage.override { inherit nodejs; }) {
      pname = "agentbox-agent-clis";
      inherit (project) version;
      inherit src;
      npmDeps = pkgs.importNpmLock {
        package = project;
        inherit packageLock;
      };
      npmConfigHook = pkgs.importNpmLock.npmConfigHook;
      dontNpmBuild = true;
      dontStrip = true;
      nativeBuildInputs = [ pkgs.autoPatchelfHook ];
      buildInputs = [ pkgs.stdenv.cc.cc.lib ];
      # Libraries a vendored helper loads from beside itself, or from a libc it brings, are not nixpkgs'.
      autoPatchelfIgnoreMissingDeps = true;
      installPhase = ''
        runHook preInstall
        dir=$out/lib/agentbox/agent-clis
        mkdir -p "$dir" "$out/bin"
        cp -r node_modules "$dir/"
        for pkg in ${builtins.concatStringsSep " " (map (n: "'${n}'") names)}; do
          node -e '
            const [pkg, dir] = process.argv.slice(1);
            const p = require(dir + "/node_modules/" + pkg + "/package.json");
            const bin = typeof p.bin === "string" ? { [pkg.replace(/^@[^/]+\//, "")]: p.bin } : (p.bin || {});
            for (const [cmd, file] of Object.entries(bin)) console.log(cmd + " " + require("path").posix.normalize(file));
          ' "$pkg" "$dir" | while read -r cmd file; do
            chmod +x "$dir/node_modules/$pkg/$file"
            ln -s "../lib/agentbox/agent-clis/node_modules/$pkg/$file" "$out/bin/$cmd"
          done
        done
        runHook postInstall
      '';
    };

  /**
    Everything built from one manifest.
    Returns { app; validatedManifest; configFiles; compose; supervisordConf; k8s; image; imageN2c;
    imageConfig; contents; }.
    - app: the managementApi package
    - manifestFile: path of the agentbox.toml to build
    - version: the Agentbox version
    - revision: source revision for the OCI label (default null)
    - agentsLockFile: the lock of [agents] npm (default: agents.lock.json beside the manifest; read
      only when [agents] npm lists CLIs)
  */
  mkBox =
    {
      app,
      manifestFile,
      version,
      revision ? null,
      agentsLockFile ? dirOf manifestFile + "/agents.lock.json",
    }:
    let
      manifestText = builtins.readFile manifestFile;
      manifest = agentboxLib.loadManifest { text = manifestText; };
      enabledFeatures = agentboxLib.features.enabledFeatures { inherit manifest; };
      featurePackages = builtins.concatLists (map (f: map pkgAt f.packages) enabledFeatures);
      # The agents' own packages on top of the default toolchain (image.contents), and their npm CLIs.
      agentPackages = map (pkgFrom "[agents] packages of the manifest") (agentTools.packagePaths { inherit manifest; });
      agentNpm =
        if (manifest.agents.npm or [ ]) == [ ] then
          [ ]
        else
          [
            (agentClis {
              inherit manifest;
              lock =
                if builtins.pathExists agentsLockFile then builtins.fromJSON (builtins.readFile agentsLockFile) else null;
            })
          ];

      # The TypeScript validator gates every output: an invalid manifest fails the build here. The
      # Kubernetes output is validated for its target, so the rules about what has no Kubernetes form
      # run too (their errors already stop the evaluation: lib/kubernetes-rules.nix; their warnings
      # are shown in the build log).
      validatorFor =
        target:
        pkgs.runCommand "agentbox-manifest-validated${if target == "compose" then "" else "-${target}"}" { } ''
          ${app}/bin/agentbox config validate --target ${target} ${manifestFile}
          mkdir -p $out
          cp ${manifestFile} $out/agentbox.toml
        '';
      validatedManifest = validatorFor "compose";

      staticBox = agentboxLib.renderBox {
        inherit manifest manifestText version revision;
        source = "agentbox.toml";
      };

      # A generated file, copied only after validation (for the compose target unless named) passed.
      validatedFor =
        validation: name: text:
        pkgs.runCommand name {
          inherit text;
          passAsFile = [ "text" ];
        } ''
          test -e ${validation}/agentbox.toml
          cp "$textPath" $out
        '';
      validated = validatedFor validatedManifest;

      configFiles = pkgs.runCommand "agentbox-etc" {
        supervisord = staticBox.files."supervisord.conf";
        artifacts = staticBox.files."artifacts.json";
        passAsFile = [
          "supervisord"
          "artifacts"
        ];
      } ''
        mkdir -p $out${runtime.configDir}
        cp ${validatedManifest}/agentbox.toml $out${runtime.manifestFile}
        cp "$supervisordPath" $out${runtime.supervisordConf}
        cp "$artifactsPath" $out${runtime.artifactsFile}
      '';

      etcFiles = [
        (pkgs.writeTextDir "etc/passwd" ''
          root:x:0:0:root:/root:/bin/false
          ${facts.image.user}:x:${toString img.uid}:${toString img.gid}:Agentbox:${img.homeDir}:${facts.image.shell}
          nobody:x:65534:65534:nobody:/nonexistent:/bin/false
        '')
        (pkgs.writeTextDir "etc/group" ''
          root:x:0:
          ${facts.image.group}:x:${toString img.gid}:
          nogroup:x:65534:
        '')
        (pkgs.writeTextDir "etc/nsswitch.conf" ''
          passwd: files
          group: files
          hosts: files dns
        '')
      ];

      # What the facts file says the image carries (nodejs is chosen above), then the app and configs.
      contents =
        map (c: if c ? nixpkgs then pkgAt c.nixpkgs else nodejs) facts.image.contents
        ++ [
          app
          configFiles
        ]
      ++ etcFiles
      ++ featurePackages
      ++ agentPackages
      ++ agentNpm;

      imageConfig = agentboxLib.imageConfig {
        inherit manifest version revision;
        contentsId = builtins.unsafeDiscardStringContext (
          builtins.concatStringsSep "\n" (map (p: "${p}") contents)
        );
      };

      # Mount points of a read-only root, owned by the box's user where it writes.
      fakeRootCommands = ''
        mkdir -p ${builtins.concatStringsSep " " mountDirs}
        chmod 1777 ${relative runtime.tmpDir}
        chown ${toString img.uid}:${toString img.gid} ${builtins.concatStringsSep " " ownedDirs}
        ln -sf /bin/env usr/bin/env
      '';
    in
    {
      inherit
        app
        validatedManifest
        configFiles
        contents
        imageConfig
        ;
      compose = validated "docker-compose.yml" staticBox.files."docker-compose.yml";
      supervisordConf = validated "supervisord.conf" staticBox.files."supervisord.conf";
      k8s = validatedFor (validatorFor "kubernetes") "kubernetes.yaml" staticBox.targets.kubernetes."kubernetes.yaml";

      image = pkgs.dockerTools.buildLayeredImage {
        inherit (imageConfig) name tag config;
        inherit contents fakeRootCommands;
        enableFakechroot = false;
        maxLayers = 100;
      };

      imageN2c =
        if nix2container == null then
          null
        else
          let
            mountPoints = pkgs.runCommand "agentbox-mount-points" { } ''
              mkdir -p ${builtins.concatStringsSep " " (map (d: "$out/${d}") mountDirs)}
              ln -s /bin/env $out/usr/bin/env
            '';
          in
          nix2container.buildImage {
            inherit (imageConfig) name tag config;
            copyToRoot = [
              (pkgs.buildEnv {
                name = "agentbox-root";
                paths = contents;
                pathsToLink = [
                  "/bin"
                  "/etc"
                  "/opt"
                  "/share"
                ];
              })
              mountPoints
            ];
            perms = [
              {
                path = mountPoints;
                regex = "/(${builtins.concatStringsSep "|" ownedDirs})$";
                uid = img.uid;
                gid = img.gid;
                mode = "0755";
              }
              {
                path = mountPoints;
                regex = "/${relative runtime.tmpDir}$";
                mode = "1777";
              }
            ];
            layers = [
              (nix2container.buildLayer {
                deps = [
                  nodejs
                  pkgs.python3Packages.supervisor
                ];
              })
            ];
          };
    };
}
