# Unit tests of lib/: an attrset of name → { expr; expected; }, checked by runTests
#   nix-instantiate --eval --strict --json -E 'let l = import ./lib; in l.runTests { tests = import ./lib/tests.nix { }; }'
# prints [] when every test passes, else the failing ones with what they returned.
{
  lib ? import ./default.nix,
}:
let
  inherit (builtins)
    attrNames
    elem
    filter
    fromJSON
    head
    map
    tryEval
    ;

  load = text: lib.loadManifest { inherit text; };
  empty = load "";

  # True when evaluating `x` deeply throws.
  throws = x: !(tryEval (builtins.deepSeq x x)).success;

  programmeNames = m: map (p: p.name) (lib.programsFor { manifest = m; });
  sectionNames = m: map (s: s.name) (lib.supervisordConfig { manifest = m; });
  composeOf =
    m:
    (lib.composeConfig {
      manifest = m;
      image = "agentbox/test:1";
    }).services.agentbox;
  imageOf = m: (lib.imageConfig { manifest = m; }).config;

  # A manifest with feature `name` enabled (and its exception declared).
  featureSettings = {
    desktop = "[features]\ndesktop = true";
    code-server = "[features]\ncode_server = true";
    playwright = "[features]\nplaywright = true";
    gaussian-splatting = "[features]\ngaussian_splatting = true\ngpu = \"cuda\"";
    telegram-mirror = "[features]\ntelegram_mirror = true";
    gpu-rocm = "[features]\ngpu = \"rocm\"";
    gpu-cuda = "[features]\ngpu = \"cuda\"";
  };
  withFeature =
    name:
    load ''
      ${featureSettings.${name}}
      [security.exceptions.${name}]
      reason = "test"
      tmpfs = ["/scratch-${name}"]
      cap_add = ["CAP_${builtins.replaceStrings [ "-" ] [ "_" ] name}"]
    '';
  # gaussian-splatting also turns gpu-cuda on; its exception then comes too.
  withFeatureComplete =
    name:
    if name == "gaussian-splatting" then
      load ''
        ${featureSettings.${name}}
        [security.exceptions.gaussian-splatting]
        reason = "test"
        tmpfs = ["/scratch-gaussian-splatting"]
        [security.exceptions.gpu-cuda]
        reason = "test"
      ''
    else
      withFeature name;
  table = lib.features.featureTable { };
  newOf = before: after: filter (x: !(elem x before)) after;

  adversarial = {
    a = {
      reason = "tries to reuse /tmp with other options";
      tmpfs = [ "/tmp:size=10g,mode=0777" ];
    };
    b = {
      reason = "adds a capability";
      cap_add = [ "NET_ADMIN" ];
      devices = [ "/dev/fuse" ];
    };
  };
in
{
  # ── strings ───────────────────────────────────────────────────────────────────────────────
  shellQuoteKeepsSafeWords = {
    expr = map lib.strings.shellQuote [ "/usr/bin/env" "--port=8080" "a b" "it's" "" ];
    expected = [ "/usr/bin/env" "--port=8080" "'a b'" "'it'\"'\"'s'" "''" ];
  };
  uniqueKeepsFirstOccurrence = {
    expr = lib.strings.unique [ "b" "a" "b" "c" "a" ];
    expected = [ "b" "a" "c" ];
  };
  splitStringIsLiteral = {
    expr = lib.strings.splitString { sep = "."; string = "a.b.c"; };
    expected = [ "a" "b" "c" ];
  };

  # ── schema defaults (same semantics as Ajv useDefaults) ────────────────────────────────────
  emptyManifestGetsEveryDefault = {
    expr = {
      inherit (empty.api) port bind;
      inherit (empty.observability) metrics_port;
      inherit (empty.adapters) critical;
      beadsUrl = empty.integrations.beads.url;
      relayPort = empty.sovereign_mesh.relay.port;
      inherit (empty) programs providers;
      exceptions = empty.security.exceptions;
    };
    expected = {
      port = 9090;
      bind = "127.0.0.1";
      metrics_port = 9091;
      critical = [ "orchestrator" ];
      beadsUrl = "";
      relayPort = 7777;
      programs = { };
      providers = { };
      exceptions = { };
    };
  };
  defaultsReachMapValuesAndRefs = {
    expr =
      let
        m = load ''
          [programs.web]
          command = "/bin/web"
          [security.exceptions.playwright]
          reason = "r"
          [providers.x]
          env_var = "X_KEY"
        '';
      in
      {
        web = m.programs.web;
        ex = m.security.exceptions.playwright;
        x = m.providers.x;
      };
    expected = {
      web = {
        command = "/bin/web";
        args = [ ];
        priority = 500;
        required_for_readiness = false;
        depends_on = [ ];
        port = 0;
        environment = { };
        autorestart = "on-failure";
      };
      ex = {
        reason = "r";
        tmpfs = [ ];
        devices = [ ];
        cap_add = [ ];
        runtime = "";
        volumes = [ ];
      };
      x = {
        env_var = "X_KEY";
        enabled = true;
        base_url = "";
      };
    };
  };
  givenValuesWinOverDefaults = {
    expr = (load "[api]\nport = 9999\n").api;
    expected = {
      port = 9999;
      bind = "127.0.0.1";
    };
  };
  defaultComesFromTheReferringNodeLikeAjv = {
    expr = lib.applyDefaults {
      root = {
        "$defs".t = {
          type = "object";
          default = {
            fromTarget = true;
          };
          properties.inner = {
            default = 1;
          };
        };
        properties = {
          withOwn = {
            "$ref" = "#/$defs/t";
            default = { };
          };
          withoutOwn = {
            "$ref" = "#/$defs/t";
          };
        };
      };
      value = { };
    };
    expected = {
      withOwn = {
        inner = 1;
      };
    };
  };
  defaultsApplyInsideArrayItems = {
    expr = lib.applyDefaults {
      root = {
        properties.xs = {
          items.properties.k.default = "d";
        };
      };
      value = {
        xs = [
          { }
          { k = "given"; }
        ];
      };
    };
    expected = {
      xs = [
        { k = "d"; }
        { k = "given"; }
      ];
    };
  };
  unknownKeyIsRefused = {
    expr = throws (load "[observability]\nmetric_port = 9100\n");
    expected = true;
  };
  missingRequiredKeyIsRefused = {
    expr = throws (load "[programs.web]\nargs = []\n");
    expected = true;
  };
  manifestShaIsOfCanonicalJson = {
    expr = lib.manifestSha256 { manifest = empty; };
    expected = builtins.hashString "sha256" (builtins.toJSON empty);
  };
  canonicalJsonEscapesLikeJavaScript = {
    # JSON.stringify writes \b and \f; an escaped backslash before "u0008" stays as it is.
    expr = lib.canonicalJson { value = builtins.fromTOML "a = \"x\\by\\fz\\\\u0008\""; };
    expected = "{\"a\":\"x\\by\\fz\\\\u0008\"}";
  };

  # ── INI and YAML serializers ──────────────────────────────────────────────────────────────
  iniRendersSectionsInOrderWithSortedKeys = {
    expr = lib.ini.toINI {
      header = [ "h" ];
      sections = [
        {
          name = "b";
          values = {
            z = 1;
            a = true;
          };
        }
        {
          name = "a";
          values.k = "v";
        }
      ];
    };
    expected = "; h\n\n[b]\na=true\nz=1\n\n[a]\nk=v\n";
  };
  iniRefusesLineBreaks = {
    expr = throws (lib.ini.toINI { sections = [ { name = "s"; values.k = "a\nb"; } ]; });
    expected = true;
  };
  iniRefusesInlineCommentMarkers = {
    expr = throws (lib.ini.toINI { sections = [ { name = "s"; values.k = "a ;b"; } ]; });
    expected = true;
  };
  yamlQuotesEveryStringAsJson = {
    expr = lib.yaml.toYAML {
      header = [ "x" ];
      value = {
        a = [
          "q\"uote"
          1
          { b = [ ]; }
        ];
        "8080/tcp" = { };
        c = null;
      };
    };
    expected = "# x\n\"8080/tcp\": {}\na:\n  - \"q\\\"uote\"\n  - 1\n  - b: []\nc: null\n";
  };

  # ── security baseline and exceptions ──────────────────────────────────────────────────────
  noExceptionsIsTheBaseline = {
    expr = removeAttrs (lib.mergeExceptions { exceptions = { }; }) [ "exceptions" ];
    expected = lib.baseline;
  };
  exceptionsAddAsSets = {
    expr =
      let
        m = lib.mergeExceptions {
          exceptions = adversarial // {
            c = {
              reason = "same capability again";
              cap_add = [ "NET_ADMIN" ];
              tmpfs = [ "/dev/shm" ];
            };
          };
        };
      in
      {
        inherit (m) cap_add devices cap_drop;
        tmp = m.tmpfs."/tmp";
        shm = m.tmpfs."/dev/shm";
      };
    expected = {
      cap_add = [ "NET_ADMIN" ];
      devices = [ "/dev/fuse" ];
      cap_drop = [ "ALL" ];
      tmp = lib.baseline.tmpfs."/tmp";
      shm = lib.security.exceptionTmpfsOptions;
    };
  };
  anExceptionCannotRemoveABaselineItem = {
    expr = lib.coversBaseline { merged = lib.mergeExceptions { exceptions = adversarial; }; };
    expected = true;
  };
  coversBaselineNoticesALostItem = {
    expr = lib.coversBaseline {
      merged = lib.baseline // {
        cap_drop = [ ];
      };
    };
    expected = false;
  };
  anExceptionCannotSetBaselineKeys = {
    expr = map (
      k:
      throws (
        lib.mergeExceptions {
          exceptions.x = {
            reason = "tries to switch off a baseline item";
            ${k} = (lib.baseline.${k} or null);
          };
        }
      )
    ) [ "cap_drop" "read_only" "user" "security_opt" "init" "protectedPaths" ];
    expected = [ true true true true true true ];
  };
  anExceptionCannotMountOverTheBaseline = {
    expr = map throws [
      (lib.mergeExceptions { exceptions.x = { reason = "r"; tmpfs = [ "/etc" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; tmpfs = [ "/var" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; tmpfs = [ "/" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; volumes = [ "/h:/workspace" ]; }; })
      (lib.mergeExceptions { exceptions.x = { reason = "r"; volumes = [ "/h:/var/lib/agentbox/" ]; }; })
    ];
    expected = [ true true true true true ];
  };
  onlyOneRuntime = {
    expr = {
      two = throws (
        lib.mergeExceptions {
          exceptions = {
            a = { reason = "r"; runtime = "nvidia"; };
            b = { reason = "r"; runtime = "runsc"; };
          };
        }
      );
      same =
        (lib.mergeExceptions {
          exceptions = {
            a = { reason = "r"; runtime = "nvidia"; };
            b = { reason = "r"; runtime = "nvidia"; };
          };
        }).runtime;
    };
    expected = {
      two = true;
      same = "nvidia";
    };
  };
  conflictingTmpfsOptionsAreRefused = {
    expr = throws (
      lib.mergeExceptions {
        exceptions = {
          a = { reason = "r"; tmpfs = [ "/dev/shm:size=1g" ]; };
          b = { reason = "r"; tmpfs = [ "/dev/shm:size=2g" ]; };
        };
      }
    );
    expected = true;
  };
  anEnabledFeatureWithoutItsExceptionIsRefused = {
    expr = throws (lib.securityFor { manifest = load "[features]\ndesktop = true\n"; });
    expected = true;
  };
  exceptionsOfDisabledFeaturesAreNotApplied = {
    expr = (lib.securityFor { manifest = load "[security.exceptions.desktop]\nreason = \"r\"\ncap_add = [\"SYS_ADMIN\"]\n"; }).cap_add;
    expected = [ ];
  };

  # ── enabling a feature adds exactly its exception and programme ──────────────────────────
  eachFeatureAddsExactlyItsProgrammes = {
    expr = map (name: newOf (programmeNames empty) (programmeNames (withFeatureComplete name))) (attrNames table);
    expected = map (
      name:
      map (p: p.name) (
        table.${name}.programs ++ (if name == "gaussian-splatting" then table.gpu-cuda.programs else [ ])
      )
    ) (attrNames table);
  };
  eachFeatureAddsExactlyItsException = {
    expr = map (
      name:
      let
        before = composeOf empty;
        after = composeOf (withFeature name);
      in
      {
        tmpfs = newOf before.tmpfs after.tmpfs;
        cap_add = after.cap_add or [ ];
        labels = newOf (attrNames before.labels) (attrNames after.labels);
        inherit (after) cap_drop read_only user security_opt;
      }
    ) (filter (n: n != "gaussian-splatting") (attrNames table));
    expected = map (name: {
      tmpfs = [ "/scratch-${name}:${lib.security.exceptionTmpfsOptions}" ];
      cap_add = [ "CAP_${builtins.replaceStrings [ "-" ] [ "_" ] name}" ];
      labels = [ "dev.agentbox.exception.${name}" ];
      inherit (composeOf empty) cap_drop read_only user security_opt;
    }) (filter (n: n != "gaussian-splatting") (attrNames table));
  };

  # ── programmes and supervisord ────────────────────────────────────────────────────────────
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

  # ── compose ───────────────────────────────────────────────────────────────────────────────
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

  # ── image config ──────────────────────────────────────────────────────────────────────────
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

  # ── Kubernetes: sizes, the shared service facts, what has no Kubernetes form ─────────────
  kubernetesQuantities = {
    expr = map lib.boxService.quantity [ "512m" "4g" "1024k" "65536" ];
    expected = [ "512Mi" "4Gi" "1024Ki" "65536" ];
  };
  kubernetesQuantityRefusesText = {
    expr = throws (lib.boxService.quantity "lots");
    expected = true;
  };
  meshHostOnPostgresPassesItsConnectionVariable = {
    expr = lib.boxService.passThroughEnv {
      manifest = load "[mesh]\nmode = \"host\"\nregistry = \"postgres\"\nregistry_connection_env = \"PG_URL\"\n";
    };
    expected = [ "PG_URL" ];
  };
  kubernetesRefusesANamedVolume = {
    expr = throws (
      lib.kubernetesObjects {
        manifest = load "[features]\ncode_server = true\n[security.exceptions.code-server]\nreason = \"ide\"\nvolumes = [\"data:/data\"]\n";
        manifestText = "";
        image = "x:y";
      }
    );
    expected = true;
  };
  kubernetesBoxIsOneStatefulSet = {
    expr = map (o: o.kind) (lib.kubernetesObjects { manifest = empty; manifestText = ""; image = "x:y"; });
    expected = [ "ConfigMap" "Service" "Service" "StatefulSet" "NetworkPolicy" ];
  };

  # ── the runner itself reports a failing pair ──────────────────────────────────────────────
  runTestsReportsFailures = {
    expr = lib.runTests {
      tests = {
        good = { expr = 1; expected = 1; };
        bad = { expr = 1; expected = 2; };
      };
    };
    expected = [ { name = "bad"; expected = 2; result = 1; } ];
  };
}
