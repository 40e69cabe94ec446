# Unit tests of lib/schema-defaults.nix and lib/manifest.nix: defaults with the semantics of Ajv useDefaults, refusals, the canonical JSON and its hash.
{
  lib,
  helpers,
}:
let
  inherit (helpers) load empty throws;
in
{
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
}
