# supervisord.conf as data → INI. supervisord itself runs as the box's user (no `user=`), keeps
# its socket and pid file under <root>/run/agentbox and logs to stdout/stderr; every programme
# logs to the container's stdout/stderr. Programmes tagged required-for-readiness carry
# AGENTBOX_REQUIRED_FOR_READINESS="1" in their environment, and the seal listener receives the
# list of them in AGENTBOX_SEAL_PROGRAMS (see docs/developer/architecture.md).
let
  inherit (builtins)
    attrNames
    concatStringsSep
    listToAttrs
    match
    replaceStrings
    ;
  ini = import ./ini.nix;
  strings = import ./strings.nix;
  pathsLib = import ./paths.nix;
  programsLib = import ./programs.nix;
  facts = import ./facts.nix;

  # supervisord expands %(name)s in option values: a literal % is written %%.
  escapePercent = replaceStrings [ "%" ] [ "%%" ];

  # supervisord's environment= syntax: KEY="value",… read by a non-POSIX shlex, which has no
  # escapes and strips quote characters from both ends of a value.
  environmentValue =
    where: env:
    concatStringsSep "," (
      map (
        key:
        let
          value = env.${key};
        in
        if match "[A-Za-z_][A-Za-z0-9_]*" key == null then
          throw "supervisord.supervisordConfig: ${where} has an invalid variable name \"${key}\""
        else if match ".*\".*" value != null then
          throw "supervisord.supervisordConfig: ${where} ${key} contains a double quote, which supervisord's environment= cannot carry"
        else if match "'.*|.*'" value != null then
          throw "supervisord.supervisordConfig: ${where} ${key} starts or ends with a single quote, which supervisord strips"
        else
          "${key}=\"${value}\""
      ) (attrNames env)
    );

  # The log level names of supervisord for the manifest's (pino) levels.
  logLevels = {
    trace = "trace";
    debug = "debug";
    info = "info";
    warn = "warn";
    error = "error";
    fatal = "critical";
    silent = "critical";
  };

  # The box's own programmes stop by themselves when supervisord is gone (boot/parent-watch.ts);
  # features' and operators' programmes run through agentbox-parent-death, which gives them SIGTERM
  # as their parent-death signal (the sandbox launcher's --parent-death mode), so none of them
  # outlives a supervisord killed with SIGKILL either.
  commandOf =
    bin: p:
    if p.origin == "box" then p.argv else [ "${bin}/${facts.programs.parentDeathCommand}" ] ++ p.argv;

  programSection =
    runDir: bin: p:
    let
      env =
        p.environment // (if p.required then { AGENTBOX_REQUIRED_FOR_READINESS = "1"; } else { });
      listener = p.kind == "eventlistener";
    in
    {
      name = "${p.kind}:${p.name}";
      values = {
        command = strings.shellJoin (commandOf bin p);
        # Not the checkout or /: a core file or anything else written to the working directory
        # lands where no agent can read (the run directory is never granted to agents).
        directory = runDir;
        inherit (p) priority autorestart startsecs startretries;
        autostart = true;
        stopsignal = "TERM";
        stopwaitsecs = 15;
        stopasgroup = true;
        killasgroup = true;
        stderr_logfile = "/dev/stderr";
        stderr_logfile_maxbytes = 0;
      }
      // (if p.exitcodes == null then { } else { exitcodes = concatStringsSep "," (map toString p.exitcodes); })
      // (
        if listener then
          {
            # stdout carries the event listener protocol; the listener logs on stderr. Process
            # communication carries stage B's report that it completed (boot/stage-b-report.ts).
            events = "PROCESS_STATE,PROCESS_COMMUNICATION";
            buffer_size = 100;
            stdout_logfile = "NONE";
          }
        else
          {
            stdout_logfile = "/dev/stdout";
            stdout_logfile_maxbytes = 0;
          }
      )
      # Capture mode: what the programme writes between supervisord's BEGIN/END markers on its
      # stdout becomes a PROCESS_COMMUNICATION_STDOUT event instead of log output.
      // (if p.reports then { stdout_capture_maxbytes = "1KB"; } else { })
      // (if env == { } then { } else { environment = environmentValue "[${p.kind}:${p.name}]" env; });
    };
in
rec {
  /**
    supervisord.conf as a list of INI sections.
    - manifest: a normalized manifest
    - root: runtime root prefix ("" in the image; a directory for the local mode)
    - bin: directory of the box's own commands (default /opt/agentbox/bin)
  */
  supervisordConfig =
    {
      manifest,
      root ? "",
      bin ? pathsLib.image.bin,
    }:
    let
      runtime = pathsLib.runtimePaths { inherit root; };
      programmes = programsLib.programsFor { inherit manifest bin runtime; };
    in
    [
      {
        name = "unix_http_server";
        values = {
          file = runtime.supervisorSocket;
          chmod = "0700";
        };
      }
      {
        name = "supervisord";
        values = {
          nodaemon = true;
          # nodaemon logs to stdout already; the log file would only duplicate it.
          logfile = "/dev/null";
          logfile_maxbytes = 0;
          pidfile = runtime.supervisorPidfile;
          loglevel = logLevels.${manifest.observability.log_level};
          identifier = "agentbox";
          environment = environmentValue "[supervisord]" {
            AGENTBOX_ROOT = runtime.root;
            AGENTBOX_MANIFEST = runtime.manifestFile;
            AGENTBOX_SUPERVISOR_URL = "unix://${runtime.supervisorSocket}";
          };
        };
      }
      {
        name = "rpcinterface:supervisor";
        values = {
          "supervisor.rpcinterface_factory" = "supervisor.rpcinterface:make_main_rpcinterface";
        };
      }
      {
        name = "supervisorctl";
        values = {
          serverurl = "unix://${runtime.supervisorSocket}";
        };
      }
    ]
    ++ map (programSection runtime.runDir bin) programmes;

  /**
    supervisord.conf text (with a "generated — do not edit" header).
    - sections: the result of supervisordConfig
    - source: what it was generated from, named in the header (default "agentbox.toml")
  */
  renderSupervisord =
    {
      sections,
      source ? "agentbox.toml",
    }:
    ini.toINI {
      header = [
        "generated from ${source} by `agentbox render` - do not edit"
        "required-for-readiness programmes carry AGENTBOX_REQUIRED_FOR_READINESS=\"1\"; the seal listener gets their names in AGENTBOX_SEAL_PROGRAMS"
      ];
      sections = map (s: s // { values = builtins.mapAttrs (k: v: if builtins.isString v then escapePercent v else v) s.values; }) sections;
    };
}
