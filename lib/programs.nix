# What runs in the box, as data: the box's own programmes, the enabled features' programmes and
# every [programs.<name>] of the manifest, each a record that lib/supervisord.nix serializes.
#
# A programme record:
#   name         supervisord programme name
#   kind         "program" or "eventlistener"
#   argv         command and arguments (argv[0] absolute, or a name found on PATH)
#   priority     start order (lower first; 1-99 belong to the box)
#   autorestart  "true", "false" or "unexpected" (supervisord's words)
#   startsecs    seconds a process must stay up to count as RUNNING
#   startretries attempts before FATAL
#   environment  extra variables (plain configuration, never secrets)
#   required     tagged required-for-readiness: the bootstrap seal waits for it to be RUNNING
#   port         TCP port it listens on (0: none)
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
  featuresLib = import ./features.nix;
  pathsLib = import ./paths.nix;

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
    environment = { };
    required = false;
    port = 0;
  };
in
rec {
  /**
    Names the box's own programmes use; a [programs.<name>] with one of them is refused.
  */
  boxProgramNames = [
    "bootstrap"
    "management-api"
    "seal-listener"
    "relay"
    "supervisord"
  ];

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
      relay = m.sovereign_mesh.relay;

      box = [
        {
          name = "bootstrap";
          # Stage B: one-shot runtime hints; exits when done and is never restarted.
          argv = [ "${bin}/agentbox-bootstrap" ];
          priority = 10;
          autorestart = "false";
          startsecs = 0;
          startretries = 0;
        }
        {
          name = "management-api";
          argv = [ "${bin}/agentbox-api" ];
          priority = 20;
          autorestart = "true";
          # RUNNING at spawn: the seal then waits for nothing but stage B. /ready is answered by
          # this programme itself, so it can never be 200 before the API listens; a one-second
          # startsecs would only add 1-2 s to every boot (supervisord checks it on its 1 s poll).
          startsecs = 0;
          startretries = 5;
          required = true;
          port = m.api.port;
        }
      ]
      ++ (
        if relay.enabled then
          [
            {
              name = "relay";
              argv = [ "${bin}/agentbox-relay" ];
              priority = 30;
              autorestart = "true";
              required = true;
              port = relay.port;
            }
          ]
        else
          [ ]
      );

      features = concatLists (
        map (f: map (p: p // { origin = "feature:${f.name}"; }) f.programs) (
          featuresLib.enabledFeatures { inherit manifest bin runtime; }
        )
      );

      operator = map (
        name:
        let
          p = m.programs.${name};
        in
        if elem name (boxProgramNames ++ map (f: f.name) features) then
          throw "programs.programsFor: [programs.${name}] uses a name reserved for the box's own programmes (rule E015)"
        else
          {
            inherit name;
            argv = [ p.command ] ++ p.args;
            inherit (p) priority environment port;
            autorestart = autorestartWords.${p.autorestart};
            required = p.required_for_readiness;
            origin = "manifest";
          }
      ) (attrNames m.programs);

      programmes = map (p: defaults // { origin = "box"; } // p) (box ++ features ++ operator);
      required = map (p: p.name) (filter (p: p.required) programmes);

      # The seal listener hears every PROCESS_STATE event and seals once all required run.
      listener = defaults // {
        name = "seal-listener";
        kind = "eventlistener";
        origin = "box";
        argv = [ "${bin}/agentbox-seal-listener" ];
        priority = 1;
        autorestart = "true";
        # supervisord dispatches events only to listeners in the RUNNING state: with the default
        # one-second startsecs every event of the first second of boot would wait for it.
        startsecs = 0;
        environment = {
          AGENTBOX_SEAL_PROGRAMS = concatStringsSep "," required;
          AGENTBOX_SEAL_ONESHOT = "bootstrap";
          AGENTBOX_SEAL_FILE = runtime.sealFile;
          AGENTBOX_SEAL_TIMEOUT_SEC = toString m.bootstrap.seal_timeout_sec;
        };
      };

      byPriority = a: b: if a.priority == b.priority then a.name < b.name else a.priority < b.priority;
    in
    sort byPriority ([ listener ] ++ programmes);

  /**
    Names of the programmes tagged required-for-readiness, in start order.
    - manifest, bin, runtime: as for programsFor
  */
  readinessFor =
    args: map (p: p.name) (filter (p: p.required) (programsFor args));
}
