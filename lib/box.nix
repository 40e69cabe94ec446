# One manifest → everything generated from it, as data and as file texts: what `agentbox render`
# writes and what flake.nix packages.
let
  manifestLib = import ./manifest.nix;
  supervisordLib = import ./supervisord.nix;
  composeLib = import ./compose.nix;
  imageConfigLib = import ./image-config.nix;
  programsLib = import ./programs.nix;
  pathsLib = import ./paths.nix;
  artifactsLib = import ./artifacts.nix;
  kubernetesLib = import ./kubernetes.nix;
  agentSandboxLib = import ./agent-sandbox.nix;
  securityLib = import ./security.nix;
in
{
  /**
    The generated files of a box.
    Returns { manifest; manifestSha256; readiness; artifacts; image; compose; supervisord; files;
    targets; } where `files` maps file names (docker-compose.yml, supervisord.conf,
    image-config.json, artifacts.json and, with [security.exceptions.sandbox-namespaces], the
    seccomp profile the compose file names) to text, and `targets.<target>` the files of each render
    target: compose (= files), kubernetes (kubernetes.yaml), agent-sandbox (agent-sandbox.yaml).
    The Kubernetes targets need `manifestText` (their ConfigMap carries it).
    - manifestText: the TOML source (give this or `manifest`)
    - manifest: an already normalized manifest
    - source: the manifest's name for the "generated from" headers (default "agentbox.toml")
    - root: runtime root prefix for supervisord.conf ("" = the image layout)
    - bin: directory of the box's own commands (default /opt/agentbox/bin)
    - version: the Agentbox version, for the image tag and labels (default "0.0.0")
    - contentsId: names the image contents (see lib/image-config.nix), default ""
    - revision: source revision for the OCI label, default null
    - manifestHostPath, workspaceHostPath: host paths in the compose file, relative to it
    - replicas: mesh host replicas on Postgres in kubernetes.yaml (default 2)
    - sandboxApi: the agent-sandbox API version of agent-sandbox.yaml, "v1beta1" (default) or
      "v1alpha1" (deprecated by agent-sandbox; for a controller older than v1beta1)
  */
  renderBox =
    {
      manifestText ? null,
      manifest ? manifestLib.loadManifest { text = manifestText; },
      source ? "agentbox.toml",
      root ? "",
      bin ? pathsLib.image.bin,
      version ? "0.0.0",
      contentsId ? "",
      revision ? null,
      manifestHostPath ? "./agentbox.toml",
      workspaceHostPath ? "./workspace",
      replicas ? 2,
      sandboxApi ? "v1beta1",
    }:
    let
      image = imageConfigLib.imageConfig {
        inherit
          manifest
          version
          contentsId
          revision
          ;
      };
      compose = composeLib.composeConfig {
        inherit manifest manifestHostPath workspaceHostPath;
        image = imageRef;
      };
      supervisord = supervisordLib.supervisordConfig { inherit manifest root bin; };
      artifacts = artifactsLib.artifactsFor { inherit manifest root bin; };
      imageRef = "${image.name}:${image.tag}";
      text =
        if manifestText == null then
          throw "box.renderBox: the Kubernetes targets need manifestText (their ConfigMap carries the manifest)"
        else
          manifestText;
      # The seccomp profile of [security.exceptions.sandbox-namespaces], when it applies.
      seccompProfile = (securityLib.securityFor { inherit manifest; }).seccompProfile;
      files = {
        "docker-compose.yml" = composeLib.renderCompose {
          config = compose;
          inherit source;
          seccompProfileFile = if seccompProfile == null then null else seccompProfile.file;
        };
        "supervisord.conf" = supervisordLib.renderSupervisord {
          sections = supervisord;
          inherit source;
        };
        "image-config.json" = builtins.toJSON image + "\n";
        "artifacts.json" = builtins.toJSON artifacts + "\n";
      }
      // (if seccompProfile == null then { } else { ${seccompProfile.file} = seccompProfile.text; });
    in
    rec {
      inherit
        manifest
        image
        compose
        supervisord
        artifacts
        ;
      manifestSha256 = manifestLib.manifestSha256 { inherit manifest; };
      readiness = programsLib.readinessFor { inherit manifest bin; runtime = pathsLib.runtimePaths { inherit root; }; };
      inherit files;
      # The Kubernetes objects as data, before they are written as YAML.
      objects = {
        kubernetes = kubernetesLib.kubernetesObjects {
          inherit manifest replicas;
          manifestText = text;
          image = imageRef;
        };
        agent-sandbox = agentSandboxLib.agentSandboxObjects {
          inherit manifest sandboxApi;
          manifestText = text;
          image = imageRef;
        };
      };
      targets = {
        compose = files;
        kubernetes."kubernetes.yaml" = kubernetesLib.renderObjects {
          objects = objects.kubernetes;
          inherit source;
        };
        agent-sandbox."agent-sandbox.yaml" = kubernetesLib.renderObjects {
          objects = objects.agent-sandbox;
          inherit source;
          target = "agent-sandbox";
        };
      };
    };
}
