# Unit tests of lib/image-config.nix: the image config.
{
  lib,
  helpers,
}:
let
  inherit (builtins) attrNames map;
  inherit (helpers) load empty imageOf;
in
{
  imageConfigFollowsTheManifest = {
    expr =
      let
        c = imageOf (load "[agentbox]\nname = \"box-x\"\n[api]\nport = 9300\n");
        env = builtins.listToAttrs (
          map (kv: let p = builtins.match "([^=]*)=(.*)" kv; in { name = builtins.elemAt p 0; value = builtins.elemAt p 1; }) c.Env
        );
      in
      {
        inherit (c) User Entrypoint;
        exposed = attrNames c.ExposedPorts;
        name = env.AGENTBOX_IMAGE_NAME;
        hasHash = builtins.match "[0-9a-f]{64}" env.AGENTBOX_IMAGE_HASH != null;
        manifestSha = env.AGENTBOX_MANIFEST_SHA256 == lib.manifestSha256 { manifest = load "[agentbox]\nname = \"box-x\"\n[api]\nport = 9300\n"; };
        # Inside its own network namespace the box listens where the published ports reach it.
        binds = [ env.AGENTBOX_API_BIND env.AGENTBOX_METRICS_BIND ];
        path = env.PATH;
      };
    expected = {
      User = "1000:1000";
      Entrypoint = [ "/bin/tini" "-s" "--" "/opt/agentbox/bin/agentbox-entrypoint" ];
      exposed = [ "9091/tcp" "9300/tcp" ];
      name = "agentbox/box-x";
      hasHash = true;
      manifestSha = true;
      binds = [ "0.0.0.0" "0.0.0.0" ];
      path = "/opt/agentbox/bin:/bin:/usr/bin";
    };
  };
  imageHashDependsOnContents = {
    expr =
      (lib.imageConfig { manifest = empty; contentsId = "a"; }).config.Env
      == (lib.imageConfig { manifest = empty; contentsId = "b"; }).config.Env;
    expected = false;
  };
}
