# kubernetes.yaml as data → YAML: the box as Kubernetes objects. A box is a StatefulSet of one
# (stable identity, its state and workspace as volume claim templates); a mesh host on the
# Postgres registry is a Deployment of `replicas` behind the same Service, each replica with
# emptyDirs (the members live in Postgres). Beside it: the manifest as a ConfigMap, a Service
# for the API and metrics (and the relay when exposed), and a NetworkPolicy admitting only
# those ports. The pod itself is lib/kubernetes-pod.nix, shared with lib/agent-sandbox.nix.
let
  inherit (builtins) concatStringsSep filter stringLength;
  yaml = import ./yaml.nix;
  boxService = import ./box-service.nix;
  pod = import ./kubernetes-pod.nix;
  targetRules = import ./kubernetes-rules.nix;

  meta = name: labels: extra: { metadata = { inherit name labels; } // extra; };
in
rec {
  /**
    True when the box runs as several replicas: a mesh host whose registry is Postgres.
    - manifest: a normalized manifest
  */
  replicated = { manifest }: manifest.mesh.mode == "host" && manifest.mesh.registry == "postgres";

  /** The ConfigMap holding the manifest's text, mounted over /etc/agentbox/agentbox.toml. */
  manifestConfigMap =
    { manifest, manifestText }:
    let
      name = manifest.agentbox.name;
    in
    {
      apiVersion = "v1";
      kind = "ConfigMap";
      data."agentbox.toml" = manifestText;
    }
    // meta (pod.manifestConfigMapName name) (pod.objectLabels { inherit manifest; }) {
      annotations = boxService.auditLabels {
        inherit manifest;
        security = { exceptions = { }; };
      };
    };

  /** The NetworkPolicy admitting only the ports the manifest exposes (api, metrics, exposed relay). */
  networkPolicy =
    { manifest }:
    let
      name = manifest.agentbox.name;
      ports = filter (l: l.service) (boxService.listeners { inherit manifest; });
    in
    {
      apiVersion = "networking.k8s.io/v1";
      kind = "NetworkPolicy";
      spec = {
        podSelector.matchLabels = pod.selectorLabels name;
        policyTypes = [ "Ingress" ];
        ingress = [ { ports = map (l: { protocol = "TCP"; port = l.port; }) ports; } ];
      };
    }
    // meta name (pod.objectLabels { inherit manifest; }) { };

  /**
    Every object of the box, in apply order.
    - manifest: a normalized manifest
    - manifestText: its TOML source (the ConfigMap's content)
    - image: the image reference "<name>:<tag>"
    - replicas: mesh host replicas when `replicated` (default 2)
    - stateStorage, workspaceStorage: sizes of the volume claims (default 1Gi, 10Gi)
  */
  kubernetesObjects =
    {
      manifest,
      manifestText,
      image,
      replicas ? 2,
      stateStorage ? "1Gi",
      workspaceStorage ? "10Gi",
    }:
    let
      name = manifest.agentbox.name;
      selector = pod.selectorLabels name;
      labels = pod.objectLabels { inherit manifest; };
      many = replicated { inherit manifest; };
      ports = map (l: {
        inherit (l) name port;
        targetPort = l.name;
        protocol = "TCP";
      }) (filter (l: l.service) (boxService.listeners { inherit manifest; }));
      template = pod.podTemplate {
        inherit manifest image;
        persistent = !many;
        # StatefulSet pods have stable names under the headless Service; replicas only their IP.
        address = if many then { podIp = true; } else { dns = "<pod>.${name}-pods"; };
        requiredEnv = if many then [ manifest.mesh.registry_connection_env ] else [ ];
      };
      claim = claimName: storage: {
        metadata.name = claimName;
        spec = {
          accessModes = [ "ReadWriteOnce" ];
          resources.requests.storage = storage;
        };
      };
      service = {
        apiVersion = "v1";
        kind = "Service";
        spec = {
          type = "ClusterIP";
          inherit selector;
          inherit ports;
        };
      } // meta name labels { };
      headless = {
        apiVersion = "v1";
        kind = "Service";
        spec = {
          clusterIP = "None";
          inherit selector;
          inherit ports;
        };
      } // meta "${name}-pods" labels { };
      statefulSet = {
        apiVersion = "apps/v1";
        kind = "StatefulSet";
        spec = {
          replicas = 1;
          serviceName = "${name}-pods";
          selector.matchLabels = selector;
          inherit template;
          volumeClaimTemplates = [
            (claim "state" stateStorage)
            (claim "workspace" workspaceStorage)
          ];
        };
      } // meta name labels { };
      deployment = {
        apiVersion = "apps/v1";
        kind = "Deployment";
        spec = {
          inherit replicas template;
          selector.matchLabels = selector;
        };
      } // meta name labels { };
    in
    if stringLength name > 58 then
      throw "kubernetes.kubernetesObjects: agentbox.name \"${name}\" is too long for Kubernetes object names (58 characters at most, so that ${name}-pods is a DNS label)"
    else if many && replicas < 1 then
      throw "kubernetes.kubernetesObjects: replicas must be 1 or more, not ${toString replicas}"
    else
      # What has no Kubernetes form (E048, E049) is refused by rule, before any object is built.
      targetRules.refuseErrors {
        inherit manifest;
        target = "kubernetes";
        value =
          [
            (manifestConfigMap { inherit manifest manifestText; })
            service
          ]
          ++ (if many then [ deployment ] else [ headless statefulSet ])
          ++ [ (networkPolicy { inherit manifest; }) ];
      };

  /**
    Multi-document YAML of `objects` (kubectl apply -f) with a "generated — do not edit" header.
    - objects: the result of kubernetesObjects (or lib/agent-sandbox.nix)
    - source: what it was generated from, named in the header (default "agentbox.toml")
    - target: the render target named in the header (default "kubernetes")
  */
  renderObjects =
    {
      objects,
      source ? "agentbox.toml",
      target ? "kubernetes",
    }:
    concatStringsSep "" (
      map (l: "# ${l}\n") [
        "generated from ${source} by `agentbox render --target ${target}` - do not edit"
        "apply: kubectl apply -f ${target}.yaml (the variables the box reads come from the Secret ${pod.envSecretName "<name>"})"
      ]
      ++ map (o: "---\n" + yaml.toYAML { value = o; }) objects
    );
}
