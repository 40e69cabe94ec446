# Unit tests of lib/programs.nix, lib/supervisord.nix and lib/paths.nix: programmes, start order, readiness, the supervisord sections under a root.
{
  lib,
  helpers,
}:
let
  inherit (builtins) filter head map;
  inherit (helpers) load empty throws programmeNames;
in
{
  boxProgrammesAndReadiness = {
    expr = {
      names = programmeNames empty;
      readiness = lib.readinessFor { manifest = empty; };
    };
    expected = {
      names = [ "seal-listener" "bootstrap" "egress-proxy" "management-api" ];
      readiness = [ "egress-proxy" "management-api" ];
    };
  };
  manifestProgrammesMapAutorestart = {
    expr =
      let
        m = load ''
          [programs.a]
          command = "/bin/a"
          autorestart = "always"
          required_for_readiness = true
          [programs.b]
          command = "/bin/b"
          autorestart = "on-failure"
          priority = 100
          [programs.c]
          command = "/bin/c"
          autorestart = "never"
        '';
        byName = builtins.listToAttrs (map (p: { inherit (p) name; value = p; }) (lib.programsFor { manifest = m; }));
      in
      {
        restart = map (n: byName.${n}.autorestart) [ "a" "b" "c" ];
        order = programmeNames m;
        readiness = lib.readinessFor { manifest = m; };
      };
    expected = {
      restart = [ "true" "unexpected" "false" ];
      order = [ "seal-listener" "bootstrap" "egress-proxy" "management-api" "b" "a" "c" ];
      readiness = [ "egress-proxy" "management-api" "a" ];
    };
  };
  dependsOnRaisesStartPriority = {
    expr =
      let
        m = load ''
          [programs.queue]
          command = "/bin/queue"
          priority = 600
          [programs.worker]
          command = "/bin/worker"
          priority = 500
          depends_on = ["queue"]
          [programs.web]
          command = "/bin/web"
          priority = 550
          depends_on = ["worker"]
          [programs.lone]
          command = "/bin/lone"
          priority = 300
        '';
        byName = builtins.listToAttrs (map (p: { inherit (p) name; value = p.priority; }) (lib.programsFor { manifest = m; }));
      in
      {
        inherit (byName) queue worker web lone;
        order = programmeNames m;
      };
    expected = {
      queue = 600;
      worker = 601;
      web = 602;
      lone = 300;
      order = [ "seal-listener" "bootstrap" "egress-proxy" "management-api" "lone" "queue" "worker" "web" ];
    };
  };
  aDependencyCycleIsRefused = {
    expr = throws (lib.programsFor { manifest = load "[programs.a]\ncommand = \"/a\"\ndepends_on = [\"b\"]\n[programs.b]\ncommand = \"/b\"\ndepends_on = [\"a\"]\n"; });
    expected = true;
  };
  reservedProgrammeNamesAreRefused = {
    expr = map (n: throws (lib.programsFor { manifest = load "[programs.${n}]\ncommand = \"/bin/x\"\n"; })) [
      "bootstrap"
      "egress-proxy"
      "management-api"
      "seal-listener"
      "relay"
    ];
    expected = [ true true true true true ];
  };
  supervisordIsReRootedAndNeverSwitchesUser = {
    expr =
      let
        sections = lib.supervisordConfig {
          manifest = empty;
          root = "/home/me/box";
        };
        get = name: (head (filter (s: s.name == name) sections)).values;
      in
      {
        socket = (get "unix_http_server").file;
        pid = (get "supervisord").pidfile;
        url = (get "supervisorctl").serverurl;
        users = filter (s: s.values ? user) sections;
        seal = (get "eventlistener:seal-listener").environment;
        apiLogs = {
          inherit (get "program:management-api") stdout_logfile stdout_logfile_maxbytes;
        };
      };
    expected = {
      socket = "/home/me/box/run/agentbox/supervisord.sock";
      pid = "/home/me/box/run/agentbox/supervisord.pid";
      url = "unix:///home/me/box/run/agentbox/supervisord.sock";
      users = [ ];
      seal = "AGENTBOX_SEAL_FILE=\"/home/me/box/run/agentbox/bootstrap.done\",AGENTBOX_SEAL_ONESHOT=\"bootstrap\",AGENTBOX_SEAL_PROGRAMS=\"egress-proxy,management-api\",AGENTBOX_SEAL_TIMEOUT_SEC=\"120\"";
      apiLogs = {
        stdout_logfile = "/dev/stdout";
        stdout_logfile_maxbytes = 0;
      };
    };
  };
  aRelativeRootIsRefused = {
    expr = map throws [
      (lib.paths.runtimePaths { root = "box"; })
      (lib.paths.runtimePaths { root = "/box/"; })
    ];
    expected = [ true true ];
  };
  supervisordEscapesPercentAndRefusesDoubleQuotes = {
    expr = {
      percent = builtins.match ".*RATIO=\"50%%\".*" (
        lib.renderSupervisord {
          sections = lib.supervisordConfig {
            manifest = load "[programs.w]\ncommand = \"/bin/w\"\nenvironment = { RATIO = \"50%\" }\n";
          };
        }
      ) != null;
      quote = throws (
        lib.supervisordConfig { manifest = load "[programs.w]\ncommand = \"/bin/w\"\nenvironment = { Q = 'say \"hi\"' }\n"; }
      );
    };
    expected = {
      percent = true;
      quote = true;
    };
  };
}
