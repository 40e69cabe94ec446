# Entry point of `agentbox render`: nix-instantiate --eval --strict --json --argstr manifestText …
# lib/render.nix. Returns the file texts plus what the caller cross-checks (the normalized
# manifest and its sha256) and uses (readiness list, artifact probes, image name and tag).
{
  # The TOML source of the manifest (the exact bytes the TypeScript validator accepted).
  manifestText,
  # The manifest's file name, named in the "generated from" headers.
  source ? "agentbox.toml",
  # Runtime root prefix for supervisord.conf: "" for the image, a directory for the local mode.
  root ? "",
  # Directory of the box's own commands.
  bin ? (import ./paths.nix).image.bin,
  # The Agentbox version (package.json), for the image tag and labels.
  version ? "0.0.0",
  # Host paths in docker-compose.yml, relative to the compose file.
  manifestHostPath ? "./agentbox.toml",
  workspaceHostPath ? "./workspace",
  # What to render, comma-separated: compose (docker-compose.yml, supervisord.conf,
  # image-config.json, artifacts.json), kubernetes (kubernetes.yaml), agent-sandbox
  # (agent-sandbox.yaml).
  target ? "compose",
  # Mesh host replicas on Postgres in kubernetes.yaml (a number, given as a string by --argstr).
  replicas ? "2",
  # The agent-sandbox API version of agent-sandbox.yaml: "v1beta1" or "v1alpha1" (deprecated).
  sandboxApi ? "v1beta1",
}:
let
  box = (import ./box.nix).renderBox {
    inherit
      manifestText
      source
      root
      bin
      version
      manifestHostPath
      workspaceHostPath
      sandboxApi
      ;
    replicas = builtins.fromJSON replicas;
  };
  targets = map (name: {
    inherit name;
    files = box.targets.${name} or (throw "render.nix: no render target \"${name}\" (compose, kubernetes or agent-sandbox)");
  }) (builtins.filter builtins.isString (builtins.split "," target));
in
{
  files = builtins.foldl' (acc: t: acc // t.files) { } targets;
  # The Kubernetes objects as data, by target.
  objects = builtins.listToAttrs (
    map (t: {
      inherit (t) name;
      value = box.objects.${t.name};
    }) (builtins.filter (t: t.name != "compose") targets)
  );
  inherit (box)
    artifacts
    manifest
    manifestSha256
    readiness
    ;
  image = {
    inherit (box.image) name tag;
  };
}
