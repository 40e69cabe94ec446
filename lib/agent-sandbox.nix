# agent-sandbox.yaml as data: the box for the kubernetes-sigs/agent-sandbox controller (API
# v1beta1, the version it stores; v1alpha1, deprecated there, on request). A SandboxTemplate
# (extensions.agents.x-k8s.io) that SandboxClaims and SandboxWarmPools name, its pods with
# emptyDir state (a pooled box is disposable), and a Sandbox (agents.x-k8s.io) of one box with its
# state and workspace as volume claim templates, which the controller suspends and resumes
# (v1beta1: spec.operatingMode Suspended / Running; v1alpha1: spec.replicas 0 / 1). The pod is
# lib/kubernetes-pod.nix, as for the StatefulSet; the ConfigMap and NetworkPolicy are
# lib/kubernetes.nix's.
let
  pod = import ./kubernetes-pod.nix;
  kubernetes = import ./kubernetes.nix;
  targetRules = import ./kubernetes-rules.nix;
in
{
  /**
    The objects, in apply order: ConfigMap, NetworkPolicy, SandboxTemplate, Sandbox.
    - manifest: a normalized manifest
    - manifestText: its TOML source
    - image: the image reference "<name>:<tag>"
    - stateStorage, workspaceStorage: sizes of the Sandbox's volume claims (default 1Gi, 10Gi)
    - sandboxApi: the agent-sandbox API version, "v1beta1" (default) or "v1alpha1" (for a
      controller older than v1beta1)
  */
  agentSandboxObjects =
    {
      manifest,
      manifestText,
      image,
      stateStorage ? "1Gi",
      workspaceStorage ? "10Gi",
      sandboxApi ? "v1beta1",
    }:
    let
      name = manifest.agentbox.name;
      labels = pod.objectLabels { inherit manifest; };
      # The controller gives a Sandbox's pod a headless Service of the Sandbox's name (asked for by
      # spec.service in v1beta1, below); pods of a template (claimed from a warm pool, named by
      # the controller) are reached by their IP.
      template =
        persistent:
        pod.podTemplate {
          inherit manifest image persistent;
          address = if persistent then { dns = name; } else { podIp = true; };
        };
      claim = claimName: storage: {
        metadata.name = claimName;
        spec = {
          accessModes = [ "ReadWriteOnce" ];
          resources.requests.storage = storage;
        };
      };
      # How the Sandbox runs, by API version. v1beta1 has no replicas, and its controller makes
      # the headless Service (the address the pod advertises) only when asked to.
      running =
        if sandboxApi == "v1beta1" then
          {
            operatingMode = "Running";
            service = true;
          }
        else if sandboxApi == "v1alpha1" then
          { replicas = 1; }
        else
          throw "agent-sandbox.agentSandboxObjects: sandboxApi must be \"v1beta1\" or \"v1alpha1\", not \"${toString sandboxApi}\"";
    in
    targetRules.refuseErrors {
      inherit manifest;
      target = "agent-sandbox";
      value = [
        (kubernetes.manifestConfigMap { inherit manifest manifestText; })
        (kubernetes.networkPolicy { inherit manifest; })
        {
          apiVersion = "extensions.agents.x-k8s.io/${sandboxApi}";
          kind = "SandboxTemplate";
          metadata = { inherit name labels; };
          spec.podTemplate = template false;
        }
        {
          apiVersion = "agents.x-k8s.io/${sandboxApi}";
          kind = "Sandbox";
          metadata = { inherit name labels; };
          spec = {
            podTemplate = template true;
            volumeClaimTemplates = [
              (claim "state" stateStorage)
              (claim "workspace" workspaceStorage)
            ];
          }
          // running;
        }
      ];
    };
}
