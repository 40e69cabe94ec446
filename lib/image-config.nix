# The container image's identity and OCI config as data: what the image builders in
# lib/image.nix receive and what `agentbox render` writes as image-config.json.
let
  inherit (builtins)
    attrNames
    concatStringsSep
    filter
    hashString
    listToAttrs
    replaceStrings
    sort
    substring
    toJSON
    ;
  strings = import ./strings.nix;
  pathsLib = import ./paths.nix;
  manifestLib = import ./manifest.nix;
  programsLib = import ./programs.nix;
  featuresLib = import ./features.nix;
  facts = import ./facts.nix;

  img = pathsLib.image;
  runtime = pathsLib.runtimePaths { };

  # A Docker tag allows [A-Za-z0-9_.-]; anything else becomes "-".
  tagSafe =
    s:
    concatStringsSep "" (
      builtins.genList (
        i:
        let
          c = substring i 1 s;
        in
        if builtins.match "[A-Za-z0-9_.-]" c != null then c else "-"
      ) (builtins.stringLength s)
    );
in
rec {
  /**
    Name and tag of the image of a manifest: agentbox/<box name>:<version>-<manifest sha256, 12>.
    The compose file refers to the image by this name, so both agree without a build.
    - manifest: a normalized manifest
    - version: the Agentbox version (package.json)
  */
  imageIdentity =
    { manifest, version }:
    let
      sha = manifestLib.manifestSha256 { inherit manifest; };
    in
    {
      name = "agentbox/${manifest.agentbox.name}";
      tag = "${tagSafe version}-${substring 0 12 sha}";
    };

  /**
    TCP ports the box listens on: the metrics port and every programme's port (the API, the
    relay when enabled, feature and manifest programmes), ascending and without repeats.
    - manifest: a normalized manifest
  */
  listeningPorts =
    { manifest }:
    sort (a: b: a < b) (
      strings.unique (
        [ manifest.observability.metrics_port ]
        # A loopback-only programme (the egress proxy, for the box's own agents) is not exposed.
        ++ map (p: p.port) (filter (p: p.port > 0 && !(p.loopbackOnly or false)) (programsLib.programsFor { inherit manifest; }))
      )
    );

  /**
    { name; tag; config; } — config is the OCI image config (User, Entrypoint, Env,
    ExposedPorts, Labels, WorkingDir, StopSignal).
    AGENTBOX_IMAGE_HASH identifies the image's inputs: the sha256 of this config (without the
    variable itself) together with `contentsId`, so identical inputs give the same value.
    - manifest: a normalized manifest
    - version: the Agentbox version (package.json), default "0.0.0"
    - contentsId: a string naming the image contents (the flake passes their store paths;
      `agentbox render` passes nothing), default ""
    - revision: source revision for the OCI label, default null (label left out)
  */
  imageConfig =
    {
      manifest,
      version ? "0.0.0",
      contentsId ? "",
      revision ? null,
    }:
    let
      id = imageIdentity { inherit manifest version; };
      sha = manifestLib.manifestSha256 { inherit manifest; };
      features = map (f: f.name) (featuresLib.enabledFeatures { inherit manifest; });
      # The fixed part comes from the facts file (the test image builder reads the same); it binds
      # the listeners on every interface of the container's own network namespace, where the
      # published ports reach them (api.bind / metrics_bind are host addresses).
      env = builtins.mapAttrs (_: replaceStrings [ "@binDir@" ] [ img.bin ]) facts.image.env // {
        HOME = img.homeDir;
        SSL_CERT_FILE = facts.image.caBundle;
        NODE_EXTRA_CA_CERTS = facts.image.caBundle;
        AGENTBOX_ROOT = runtime.root;
        AGENTBOX_APP_DIR = img.appDir;
        AGENTBOX_MANIFEST = runtime.manifestFile;
        AGENTBOX_MANIFEST_SHA256 = sha;
        AGENTBOX_SUPERVISORD_CONF = runtime.supervisordConf;
        AGENTBOX_ARTIFACTS = runtime.artifactsFile;
        AGENTBOX_IMAGE_NAME = id.name;
        AGENTBOX_IMAGE_TAG = id.tag;
        AGENTBOX_VERSION = version;
      };
      envList = e: map (k: "${k}=${e.${k}}") (attrNames e);
      base = {
        User = "${toString img.uid}:${toString img.gid}";
        # tini (PID 1) runs the entrypoint: stage A, then exec supervisord with AGENTBOX_SUPERVISORD_CONF.
        Entrypoint = facts.image.init ++ [ "${img.bin}/${facts.image.entrypoint}" ];
        WorkingDir = runtime.workspaceDir;
        StopSignal = "SIGTERM";
        ExposedPorts = listToAttrs (
          map (p: {
            name = "${toString p}/tcp";
            value = { };
          }) (listeningPorts { inherit manifest; })
        );
        Labels = {
          "org.opencontainers.image.title" = id.name;
          "org.opencontainers.image.description" = "Agentbox: a hardened box for autonomous coding agents";
          "org.opencontainers.image.version" = version;
          "dev.agentbox.manifest.sha256" = sha;
          "dev.agentbox.features" = concatStringsSep "," features;
        }
        // (if revision == null then { } else { "org.opencontainers.image.revision" = revision; });
        Env = envList env;
      };
      hash = hashString "sha256" (toJSON {
        config = base;
        contents = contentsId;
      });
    in
    {
      inherit (id) name tag;
      config = base // {
        Env = envList (env // { AGENTBOX_IMAGE_HASH = hash; });
      };
    };
}
