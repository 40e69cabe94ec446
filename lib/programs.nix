# What runs in the box, as data: the box's own programmes (names, commands and priorities from
# schema/box-facts.json), the enabled features' programmes and every [programs.<name>] of the
# manifest, each a record that lib/supervisord.nix serializes.
#
# A programme record:
#   name         supervisord programme name
#   kind         "program" or "eventlistener"
#   argv         command and arguments (argv[0] absolute, or a name found on PATH)
#   priority     start order (lower first; below programs.firstOperatorPriority belong to the box)
#   autorestart  "true", "false" or "unexpected" (supervisord's words)
#   startsecs    seconds a process must stay up to count as RUNNING
#   startretries attempts before FATAL
#   exitcodes    exit statuses supervisord counts as expected (with autorestart "unexpected": not
#                restarted); null leaves supervisord's default (0)
#   environment  extra variables (plain configuration, never secrets)
#   required     tagged required-for-readiness: the bootstrap seal waits for it to be RUNNING
#   port         TCP port it listens on (0: none)
#   reports      announces its completion to the seal listener through supervisord's process
#                communication channel (the one-shot stage B; see boot/stage-b-report.ts)
#   origin       "box", "feature:<name>" or "manifest"
let
  inherit (builtins)
    attrNames
    concatLists
    concatStringsSep
    elem
    filter
    sort
    ;
  facts = import ./facts.nix;
  featuresLib = import ./features.nix;
  pathsLib = import ./paths.nix;
  startOrder = import ./start-order.nix;

  autorestartWords = {
    always = "true";
    on-failure = "unexpected";
    never = "false";
  };

  defaults = {
    kind = "program";
    autorestart = "unexpected";
    startsecs = 1;
    startretries = 3;
    exitcodes = null;
    environment = { };
    required = false;
    port = 0;
    reports = false;
  };

  # How supervisord treats each box programme (the facts file holds what TypeScript needs too).
  boxSupervision = {
    seal-listener = {
      autorestart = "true";
      # supervisord dispatches events only to listeners in the RUNNING state: with the default
      # one-second startsecs every event of the first second of boot would wait for it.
      startsecs = 0;
    };
    bootstrap = {
      # Stage B: one-shot runtime hints; exits when done and is never restarted.
      autorestart = "false";
      startsecs = 0;
      startretries = 0;
    };
    management-api = {
      # Restarted after any exit but one: programs.startFailedExit, with which it says it cannot
      # start (its port is taken, boot/start-failure.ts) — a restart would only fail again, once
      # a second, forever. It then stays EXITED and the seal listener reports why.
      autorestart = "unexpected";
      exitcodes = [ facts.programs.startFailedExit ];
      # RUNNING at spawn: the seal then waits for nothing but stage B. /ready is answered by
      # this programme itself, so it can never be 200 before the API listens; a one-second
      # startsecs would only add 1-2 s to every boot (supervisord checks it on its 1 s poll).
      startsecs = 0;
      startretries = 5;
    };
    relay = {
      autorestart = "true";
    };
    egress-proxy = {
      # As the API: restarted after any exit but programs.startFailedExit (its port is taken).
      autorestart = "unexpected";
      exitcodes = [ facts.programs.startFailedExit ];
      # RUNNING at spawn, like the API: the API itself reports the proxy in /ready once its
      # control socket answers, so a startsecs wait would only delay every boot.
      startsecs = 0;
      startretries = 5;
    };
  };
in
rec {
  /**
    Names the box's own and its features' programmes use, and `supervisord`; a
    [programs.<name>] with one of them is refused (rule E015).
  */
  boxProgramNames = facts.reservedProgramNames;

  /**
    Every programme of a box, in priority order (then name).
    - manifest: a normalized manifest
    - bin: directory of the box's own commands (default: the image's, /opt/agentbox/bin)
    - runtime: runtime paths (lib/paths.nix runtimePaths; default: the image layout)
  */
  programsFor =
    {
      manifest,
      bin ? pathsLib.image.bin,
      runtime ? pathsLib.runtimePaths { },
    }:
    let
      m = manifest;

      # A box programme runs when it has no setting or its setting has its value.
      wanted = p: !(p ? setting) || facts.at { path = p.setting.key; attrs = m; } == p.setting.value;
      boxRecord =
        name:
        let
          p = facts.programs.box.${name};
          # The first key is the programme's own port (the API's second, metrics, is published
          # separately by lib/compose.nix and lib/image-config.nix).
          port = if p ? portKeys then facts.at { path = builtins.head p.portKeys; attrs = m; } else 0;
        in
        defaults
        // boxSupervision.${name}
        // {
          inherit name port;
          inherit (p) kind priority;
          required = p.required or false;
          loopbackOnly = p.loopbackOnly or false;
          oneshot = p.oneshot or false;
          reports = p.oneshot or false;
          origin = "box";
          argv = facts.substituteArgv {
            inherit (p) argv;
            inherit bin port runtime;
          };
        };
      box = map boxRecord (filter (n: wanted facts.programs.box.${n}) (attrNames facts.programs.box));

      features = concatLists (
        map (f: map (p: p // { origin = "feature:${f.name}"; }) f.programs) (
          featuresLib.enabledFeatures { inherit manifest bin runtime; }
        )
      );

      # depends_on orders the start: a programme's priority is raised past its dependencies'.
      starts = startOrder.startPriorities { programs = m.programs; };
      operator = map (
        name:
        let
          p = m.programs.${name};
        in
        if elem name boxProgramNames then
          throw "programs.programsFor: [programs.${name}] uses a name reserved for the box's own programmes (rule E015)"
        else
          {
            inherit name;
            argv = [ p.command ] ++ p.args;
            inherit (p) environment port;
            priority = starts.${name};
            autorestart = autorestartWords.${p.autorestart};
            required = p.required_for_readiness;
            origin = "manifest";
          }
      ) (attrNames m.programs);

      programmes = map (p: defaults // p) (features ++ operator);
      required = map (p: p.name) (filter (p: p.required) (box ++ programmes));

      # The seal listener hears every PROCESS_STATE event and seals once all required run.
      withSealSettings =
        p:
        if p.name != "seal-listener" then
          p
        else
          p
          // {
            environment = {
              AGENTBOX_SEAL_PROGRAMS = concatStringsSep "," required;
              AGENTBOX_SEAL_ONESHOT = concatStringsSep "," (map (b: b.name) (filter (b: b.oneshot) box));
              AGENTBOX_SEAL_FILE = runtime.sealFile;
              AGENTBOX_SEAL_TIMEOUT_SEC = toString m.bootstrap.seal_timeout_sec;
            };
          };

      byPriority = a: b: if a.priority == b.priority then a.name < b.name else a.priority < b.priority;
    in
    sort byPriority (map (p: removeAttrs (withSealSettings p) [ "oneshot" ]) box ++ programmes);

  /**
    Names of the programmes tagged required-for-readiness, in start order.
    - manifest, bin, runtime: as for programsFor
  */
  readinessFor =
    args: map (p: p.name) (filter (p: p.required) (programsFor args));
}
