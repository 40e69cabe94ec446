# Every path the generated configs name, in one place. Runtime paths take a `root` prefix so the
# local embedded mode runs the same configuration under a directory; the layout matches
# management-api/src/runtime-paths.ts (AGENTBOX_ROOT).
let
  strings = import ./strings.nix;
in
{
  /**
    The runtime directories and files of a box, under `root`.
    - root: "" in the image (paths start at /), or an absolute directory without a trailing
      slash for the local mode (e.g. "/home/me/box/.agentbox/root"); the serializers refuse
      characters their formats cannot carry
  */
  runtimePaths =
    {
      root ? "",
    }:
    let
      ok =
        root == ""
        || (
          strings.hasPrefix {
            prefix = "/";
            string = root;
          }
          && builtins.match ".*/" root == null
        );
      r =
        if ok then
          root
        else
          throw "paths.runtimePaths: root must be \"\" or an absolute path without a trailing slash (got \"${root}\")";
      runDir = "${r}/run/agentbox";
      stateDir = "${r}/var/lib/agentbox";
    in
    {
      root = if r == "" then "/" else r;
      inherit runDir stateDir;
      workspaceDir = "${r}/workspace";
      logDir = "${r}/var/log/agentbox";
      tmpDir = "${r}/tmp";
      sealFile = "${runDir}/bootstrap.done";
      supervisorSocket = "${runDir}/supervisord.sock";
      supervisorPidfile = "${runDir}/supervisord.pid";
      secretsDir = "${stateDir}/secrets";
      configDir = "${r}/etc/agentbox";
      manifestFile = "${r}/etc/agentbox/agentbox.toml";
      supervisordConf = "${r}/etc/agentbox/supervisord.conf";
      artifactsFile = "${r}/etc/agentbox/artifacts.json";
    };

  /**
    Where the box's own commands live in the image (not re-rooted: code, not state). The
    management-api package installs them there; see docs/developer/architecture.md.
  */
  image = {
    appDir = "/opt/agentbox";
    bin = "/opt/agentbox/bin";
    homeDir = "/var/lib/agentbox";
    uid = 1000;
    gid = 1000;
  };
}
