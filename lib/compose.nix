# docker-compose.yml as data → YAML: one `agentbox` service with the hardened baseline (plus the
# exceptions of enabled features, merged by lib/security.nix), ports published on the host
# addresses the manifest names, a /ready healthcheck run with the image's own node, the state
# volume, the workspace and the manifest mounted read-only; with the sandbox-namespaces exception,
# the seccomp profile file beside it (lib/seccomp.nix). Compose file format: the Compose
# Specification as docker-compose 1.29 reads it (no top-level `name:`).
let
  inherit (builtins)
    attrNames
    isAttrs
    isList
    isString
    mapAttrs
    replaceStrings
    ;
  strings = import ./strings.nix;
  yaml = import ./yaml.nix;
  securityLib = import ./security.nix;
  boxService = import ./box-service.nix;
  pathsLib = import ./paths.nix;

  runtime = pathsLib.runtimePaths { };

  # Compose interpolates ${VAR} and $VAR in values; a literal $ is written $$.
  escapeInterpolation =
    v:
    if isString v then
      replaceStrings [ "$" ] [ "$$" ] v
    else if isList v then
      map escapeInterpolation v
    else if isAttrs v then
      mapAttrs (k: escapeInterpolation) v
    else
      v;

  # An IPv6 host address is bracketed in a port mapping.
  hostAddress = a: if strings.hasInfix { infix = ":"; string = a; } then "[${a}]" else a;
  publish = address: port: "${hostAddress address}:${toString port}:${toString port}";
in
rec {
  /** Name of the named volume that holds /var/lib/agentbox. */
  stateVolume = "agentbox-state";

  /**
    The compose file as data.
    - manifest: a normalized manifest
    - image: the image reference, "<name>:<tag>" (lib/image-config.nix imageIdentity)
    - manifestHostPath: the manifest on the host, relative to the compose file (default "./agentbox.toml")
    - workspaceHostPath: the workspace on the host, relative to the compose file (default "./workspace")
  */
  composeConfig =
    {
      manifest,
      image,
      manifestHostPath ? "./agentbox.toml",
      workspaceHostPath ? "./workspace",
    }:
    let
      m = manifest;
      sec = securityLib.securityFor { inherit manifest; };
      probes = boxService.probes { inherit manifest; };
      ports = map (l: publish l.bind l.port) (boxService.listeners { inherit manifest; });
      # Variables the manifest names (never their values): passed through from the host.
      passThrough = boxService.passThroughEnv { inherit manifest; };

      readyProbe = "fetch('http://127.0.0.1:${toString probes.port}${probes.readyPath}').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))";

      service =
        {
          inherit image;
          hostname = m.agentbox.name;
          inherit (sec)
            user
            read_only
            cap_drop
            security_opt
            init
            ;
          tmpfs = map (p: "${p}:${sec.tmpfs.${p}}") (attrNames sec.tmpfs);
          pids_limit = m.resources.pids;
          mem_limit = m.resources.memory;
          cpus = m.resources.cpus;
          inherit ports;
          volumes = [
            "${stateVolume}:${runtime.stateDir}"
            "${workspaceHostPath}:${runtime.workspaceDir}"
            "${manifestHostPath}:${runtime.manifestFile}:ro"
          ]
          ++ sec.volumes;
          healthcheck = {
            test = [
              "CMD"
              "node"
              "-e"
              readyProbe
            ];
            interval = "${toString probes.intervalSec}s";
            timeout = "${toString probes.timeoutSec}s";
            inherit (probes) retries;
            start_period = "${toString probes.startPeriodSec}s";
          };
          restart = "unless-stopped";
          stop_grace_period = "${toString probes.stopGraceSec}s";
          labels = boxService.auditLabels {
            inherit manifest;
            security = sec;
          };
        }
        // (if sec.cap_add == [ ] then { } else { inherit (sec) cap_add; })
        // (if sec.devices == [ ] then { } else { inherit (sec) devices; })
        // (if sec.runtime == null then { } else { inherit (sec) runtime; })
        // (if passThrough == [ ] then { } else { environment = passThrough; });
    in
    escapeInterpolation {
      services.agentbox = service;
      volumes.${stateVolume} = { };
    };

  /**
    docker-compose.yml text with a "generated — do not edit" header.
    - config: the result of composeConfig
    - source: what it was generated from, named in the header (default "agentbox.toml")
    - seccompProfileFile: the seccomp profile file the service names, or null (default)
  */
  renderCompose =
    {
      config,
      source ? "agentbox.toml",
      seccompProfileFile ? null,
    }:
    yaml.toYAML {
      header = [
        "generated from ${source} by `agentbox render` - do not edit"
        "run: docker-compose -p <project> -f docker-compose.yml up -d"
      ]
      ++ (
        if seccompProfileFile == null then
          [ ]
        else
          [ "run it in this directory: security_opt names ./${seccompProfileFile} relative to it" ]
      );
      value = config;
    };
}
