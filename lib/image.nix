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

  # An attribute path (list of names) of pkgs, with an error naming it when absent.
  pkgAt =
    path:
    builtins.foldl' (
      acc: name:
      acc.${name} or (throw "image.nix: nixpkgs has no ${builtins.concatStringsSep "." path} (named in schema/box-facts.json)")
    ) pkgs path;
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
    headers only, no libseccomp), compiled with the pinned stdenv; the application carries it at
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
      buildPhase = ''
        runHook preBuild
        $CC -O2 -Wall -Wextra -Werror -o ${launcherName} ${src}/${dirOf facts.image.sandboxLauncher.source}/*.c
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
    Everything built from one manifest.
    Returns { app; validatedManifest; configFiles; compose; supervisordConf; k8s; image; imageN2c;
    imageConfig; contents; }.
    - app: the managementApi package
    - manifestFile: path of the agentbox.toml to build
    - version: the Agentbox version
    - revision: source revision for the OCI label (default null)
  */
  mkBox =
    {
      app,
      manifestFile,
      version,
      revision ? null,
    }:
    let
      manifestText = builtins.readFile manifestFile;
      manifest = agentboxLib.loadManifest { text = manifestText; };
      enabledFeatures = agentboxLib.features.enabledFeatures { inherit manifest; };
      featurePackages = builtins.concatLists (map (f: map pkgAt f.packages) enabledFeatures);

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
      ++ featurePackages;

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
