# Unit tests of lib/compose.nix: the compose service.
{
  lib,
  helpers,
}:
let
  inherit (builtins) attrNames;
  inherit (helpers) load empty composeOf imageOf;
in
{
  composeCarriesTheBaseline = {
    expr =
      let
        s = composeOf empty;
      in
      {
        inherit (s) user read_only cap_drop security_opt init pids_limit mem_limit cpus ports;
        tmpfs = s.tmpfs;
        volumes = s.volumes;
        hasCapAdd = s ? cap_add;
      };
    expected = {
      user = "1000:1000";
      read_only = true;
      cap_drop = [ "ALL" ];
      security_opt = [ "no-new-privileges:true" ];
      init = true;
      pids_limit = 512;
      mem_limit = "4g";
      cpus = 2;
      ports = [ "127.0.0.1:9090:9090" "127.0.0.1:9091:9091" ];
      tmpfs = [
        "/run:uid=1000,gid=1000,mode=0755,size=64m"
        "/tmp:uid=1000,gid=1000,mode=1777,size=512m"
        "/var/log:uid=1000,gid=1000,mode=0755,size=64m"
      ];
      volumes = [
        "agentbox-state:/var/lib/agentbox"
        "./workspace:/workspace"
        "./agentbox.toml:/etc/agentbox/agentbox.toml:ro"
      ];
      hasCapAdd = false;
    };
  };
  metricsPortChangesPublishedAndExposedPorts = {
    expr =
      let
        m = load "[observability]\nmetrics_port = 9500\nmetrics_bind = \"::1\"\n";
      in
      {
        ports = (composeOf m).ports;
        exposed = attrNames (imageOf m).ExposedPorts;
      };
    expected = {
      ports = [ "127.0.0.1:9090:9090" "[::1]:9500:9500" ];
      exposed = [ "9090/tcp" "9500/tcp" ];
    };
  };
  relayIsPublishedOnlyWithExpose = {
    expr =
      let
        relay = expose: load ''
          [sovereign_mesh]
          enabled = true
          [sovereign_mesh.relay]
          enabled = true
          expose = ${if expose then "true" else "false"}
        '';
      in
      {
        hidden = (composeOf (relay false)).ports;
        exposed = (composeOf (relay true)).ports;
        exposedPorts = attrNames (imageOf (relay false)).ExposedPorts;
      };
    expected = {
      hidden = [ "127.0.0.1:9090:9090" "127.0.0.1:9091:9091" ];
      exposed = [ "127.0.0.1:9090:9090" "127.0.0.1:9091:9091" "127.0.0.1:7777:7777" ];
      exposedPorts = [ "7777/tcp" "9090/tcp" "9091/tcp" ];
    };
  };
  composeEscapesInterpolation = {
    expr =
      (composeOf (load "[features]\ndesktop = true\n[security.exceptions.desktop]\nreason = \"costs $5 or \${X}\"\n")).labels."dev.agentbox.exception.desktop";
    expected = "costs $$5 or $\${X}";
  };
  composePassesNamedVariablesThrough = {
    expr =
      (composeOf (load ''
        [providers.a]
        env_var = "A_KEY"
        [providers.b]
        env_var = "B_KEY"
        enabled = false
        [integrations.memory]
        connection_env = "PG_URL"
      '')).environment;
    expected = [ "A_KEY" "PG_URL" ];
  };
}
