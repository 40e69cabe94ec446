# The box as a Kubernetes pod template, from the same settings as the compose service
# (lib/security.nix securityFor, lib/box-service.nix): uid/gid, read-only root, no privilege
# escalation, every capability dropped (plus the exceptions' additions), the RuntimeDefault
# seccomp profile, tmpfs as memory-backed emptyDirs with their size limits, the listeners as
# container ports, variables from a Secret and the URL the box advertises to its mesh, /livez,
# /ready and a startup probe. Shared by lib/kubernetes.nix (StatefulSet, Deployment) and
# lib/agent-sandbox.nix.
let
  inherit (builtins)
    attrNames
    ceil
    concatMap
    elem
    filter
    length
    replaceStrings
    toJSON
    ;
  strings = import ./strings.nix;
  securityLib = import ./security.nix;
  featuresLib = import ./features.nix;
  facts = import ./facts.nix;
  manifestLib = import ./manifest.nix;
  boxService = import ./box-service.nix;
  advertise = import ./kubernetes-advertise.nix;
  runtime = (import ./paths.nix).runtimePaths { };

  # Device-plugin resources that stand for a GPU feature's devices, by features.gpu.
  gpuResources = {
    cuda = "nvidia.com/gpu";
    rocm = "amd.com/gpu";
  };
  # A volume name (DNS label) for a mount path: "/var/log" → "tmpfs-var-log".
  volumeName = prefix: path: prefix + "-" + replaceStrings [ "/" "_" "." ] [ "-" "-" "-" ] (builtins.substring 1 (-1) path);
  parseVolume = string: strings.splitString { sep = ":"; inherit string; };
in
rec {
  /** Names of the Secret holding the variables the box reads, and of the manifest's ConfigMap. */
  envSecretName = name: "${name}-env";
  manifestConfigMapName = name: "${name}-manifest";

  /** The labels that select the box's pods (stable across manifest changes). */
  selectorLabels = name: {
    "app.kubernetes.io/name" = "agentbox";
    "app.kubernetes.io/instance" = name;
  };

  /**
    The labels of every object of a box: the selector labels plus the manifest's sha256 (its
    first 12 hex digits, as in the image tag: a label value holds at most 63 characters; the
    annotation dev.agentbox.manifest.sha256 holds all of it).
    - manifest: a normalized manifest
  */
  objectLabels =
    { manifest }:
    selectorLabels manifest.agentbox.name
    // {
      "dev.agentbox/manifest-sha256" = builtins.substring 0 12 (manifestLib.manifestSha256 { inherit manifest; });
    };

  /**
    The pod template ({ metadata; spec; }) of a box.
    - manifest: a normalized manifest
    - image: the image reference "<name>:<tag>"
    - persistent: true when `state` and `workspace` come from volume claim templates (a
      StatefulSet, a Sandbox); false gives each pod emptyDirs (mesh host replicas, warm pools)
    - address: how other pods reach this one, for the advertised URL (lib/kubernetes-advertise.nix;
      default { podIp = true; }, which any pod has)
    - requiredEnv: variables whose Secret key must exist for the pod to start (default none)
  */
  podTemplate =
    {
      manifest,
      image,
      persistent,
      address ? { podIp = true; },
      requiredEnv ? [ ],
    }:
    let
      m = manifest;
      name = m.agentbox.name;
      # The sandbox-namespaces seccomp profile has no Kubernetes form (rule W019): left out.
      sec = securityLib.securityFor {
        inherit manifest;
        kubernetes = true;
      };
      probes = boxService.probes { inherit manifest; };
      ids = map builtins.fromJSON (strings.splitString { sep = ":"; string = sec.user; });
      uid = builtins.elemAt ids 0;
      gid = builtins.elemAt ids 1;
      seccomp =
        if elem "seccomp=unconfined" sec.security_opt || elem "seccomp:unconfined" sec.security_opt then
          "Unconfined"
        else
          "RuntimeDefault";
      unmapped = filter (
        o: !(elem o [ "no-new-privileges:true" "seccomp=unconfined" "seccomp:unconfined" ])
      ) sec.security_opt;

      # A GPU feature's devices are what its device plugin hands the pod; any other device has no
      # Kubernetes form (rule E048 says so before this is evaluated).
      gpuFeatures = filter (f: facts.features.${f.name}.setting.key == [ "features" "gpu" ]) (
        featuresLib.enabledFeatures { inherit manifest; }
      );
      gpuDevices = concatMap (f: m.security.exceptions.${f.name}.devices or [ ]) gpuFeatures;
      otherDevices = filter (d: !(elem d gpuDevices)) sec.devices;

      tmpfs = map (path: {
        inherit path;
        volume = volumeName "tmpfs" path;
        size = boxService.tmpfsSize sec.tmpfs.${path};
      }) (attrNames sec.tmpfs);
      hostVolumes = map (
        spec:
        let
          p = parseVolume spec;
          host = builtins.head p;
          container = builtins.elemAt p 1;
        in
        if !(strings.hasPrefix { prefix = "/"; string = host; }) then
          throw "kubernetes-pod.podTemplate: exception volume \"${spec}\" names no host directory, so it has no Kubernetes form (rule E049)"
        else
          {
            inherit host container;
            volume = volumeName "host" container;
            readOnly = length p == 3 && builtins.elemAt p 2 == "ro";
          }
      ) sec.volumes;

      listeners = boxService.listeners { inherit manifest; };
      httpProbe = path: extra: {
        httpGet = {
          inherit path;
          port = "api";
        };
        periodSeconds = probes.intervalSec;
        timeoutSeconds = probes.timeoutSec;
        failureThreshold = probes.retries;
      } // extra;

      container = {
        name = "agentbox";
        inherit image;
        imagePullPolicy = "IfNotPresent";
        securityContext = {
          runAsUser = uid;
          runAsGroup = gid;
          runAsNonRoot = true;
          readOnlyRootFilesystem = sec.read_only;
          allowPrivilegeEscalation = !(elem "no-new-privileges:true" sec.security_opt);
          privileged = false;
          capabilities = {
            drop = sec.cap_drop;
          } // (if sec.cap_add == [ ] then { } else { add = sec.cap_add; });
          seccompProfile.type = seccomp;
        };
        ports = map (l: {
          inherit (l) name;
          containerPort = l.port;
          protocol = "TCP";
        }) listeners;
        resources.limits = {
          memory = boxService.quantity m.resources.memory;
          cpu = toJSON m.resources.cpus;
        } // (if gpuFeatures == [ ] then { } else { ${gpuResources.${m.features.gpu}} = 1; });
        livenessProbe = httpProbe probes.livePath { };
        readinessProbe = httpProbe probes.readyPath { };
        # The box gets as long to come up as compose's start_period before liveness counts.
        startupProbe = httpProbe probes.livePath {
          periodSeconds = 5;
          failureThreshold = ceil (probes.startPeriodSec / 5.0);
        };
        volumeMounts =
          [
            { name = "state"; mountPath = runtime.stateDir; }
            { name = "workspace"; mountPath = runtime.workspaceDir; }
            {
              name = "manifest";
              mountPath = runtime.manifestFile;
              subPath = baseNameOf runtime.manifestFile;
              readOnly = true;
            }
          ]
          ++ map (t: { name = t.volume; mountPath = t.path; }) tmpfs
          ++ map (v: { name = v.volume; mountPath = v.container; inherit (v) readOnly; }) hostVolumes;
      } // (
        let
          env =
            advertise.advertiseEnv { inherit manifest address; }
            ++ map (n: {
              name = n;
              valueFrom.secretKeyRef = {
                name = envSecretName name;
                key = n;
                optional = !(elem n requiredEnv);
              };
            }) (boxService.passThroughEnv { inherit manifest; });
        in
        if env == [ ] then { } else { inherit env; }
      );
    in
    if unmapped != [ ] then
      throw "kubernetes-pod.podTemplate: security option \"${builtins.head unmapped}\" has no Kubernetes form"
    else if otherDevices != [ ] then
      throw "kubernetes-pod.podTemplate: device \"${builtins.head otherDevices}\" has no Kubernetes form (rule E048)"
    else
      {
        metadata = {
          labels = objectLabels { inherit manifest; };
          annotations = boxService.auditLabels { inherit manifest; security = sec; } // {
            "prometheus.io/scrape" = "true";
            "prometheus.io/port" = toString m.observability.metrics_port;
            "prometheus.io/path" = "/metrics";
          };
        };
        spec = {
          automountServiceAccountToken = false;
          enableServiceLinks = false;
          terminationGracePeriodSeconds = probes.stopGraceSec;
          securityContext = {
            runAsUser = uid;
            runAsGroup = gid;
            runAsNonRoot = true;
            fsGroup = gid;
            seccompProfile.type = seccomp;
          };
          containers = [ container ];
          volumes =
            (
              if persistent then
                [ ]
              else
                [
                  { name = "state"; emptyDir = { }; }
                  { name = "workspace"; emptyDir = { }; }
                ]
            )
            ++ [
              {
                name = "manifest";
                configMap.name = manifestConfigMapName name;
              }
            ]
            ++ map (t: {
              name = t.volume;
              emptyDir = { medium = "Memory"; } // (if t.size == null then { } else { sizeLimit = boxService.quantity t.size; });
            }) tmpfs
            ++ map (v: {
              name = v.volume;
              hostPath.path = v.host;
            }) hostVolumes;
        } // (if sec.runtime == null then { } else { runtimeClassName = sec.runtime; });
      };
}
