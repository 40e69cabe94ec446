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
in
{
  /**
    The generated files of a box.
    Returns { manifest; manifestSha256; readiness; artifacts; image; compose; supervisord; files; }
    where `files` maps file names (docker-compose.yml, supervisord.conf, image-config.json,
    artifacts.json) to text.
    - manifestText: the TOML source (give this or `manifest`)
    - manifest: an already normalized manifest
    - source: the manifest's name for the "generated from" headers (default "agentbox.toml")
    - root: runtime root prefix for supervisord.conf ("" = the image layout)
    - bin: directory of the box's own commands (default /opt/agentbox/bin)
    - version: the Agentbox version, for the image tag and labels (default "0.0.0")
    - contentsId: names the image contents (see lib/image-config.nix), default ""
    - revision: source revision for the OCI label, default null
    - manifestHostPath, workspaceHostPath: host paths in the compose file, relative to it
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
        image = "${image.name}:${image.tag}";
      };
      supervisord = supervisordLib.supervisordConfig { inherit manifest root bin; };
      artifacts = artifactsLib.artifactsFor { inherit manifest root bin; };
    in
    {
      inherit
        manifest
        image
        compose
        supervisord
        artifacts
        ;
      manifestSha256 = manifestLib.manifestSha256 { inherit manifest; };
      readiness = programsLib.readinessFor { inherit manifest bin; runtime = pathsLib.runtimePaths { inherit root; }; };
      files = {
        "docker-compose.yml" = composeLib.renderCompose {
          config = compose;
          inherit source;
        };
        "supervisord.conf" = supervisordLib.renderSupervisord {
          sections = supervisord;
          inherit source;
        };
        "image-config.json" = builtins.toJSON image + "\n";
        "artifacts.json" = builtins.toJSON artifacts + "\n";
      };
    };
}
