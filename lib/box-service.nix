# What every target runs the box with, whatever its format: the listeners and where they are
# reachable, the variables passed through (names only), the readiness and liveness checks, the
# tmpfs mounts with their sizes, and the audit labels. lib/compose.nix and lib/kubernetes-pod.nix
# both read these, so a docker-compose service and a Kubernetes pod cannot drift apart.
let
  inherit (builtins)
    attrNames
    filter
    head
    listToAttrs
    match
    sort
    ;
  strings = import ./strings.nix;
  facts = import ./facts.nix;
  manifestLib = import ./manifest.nix;
  programsLib = import ./programs.nix;
in
{
  /**
    The box's listeners, in the order compose publishes them: the API, the metrics endpoint, the
    embedded relay (when enabled and exposed), then each feature programme's fixed port.
    Each is { name; port; bind; service; }: `bind` is the host address compose publishes it on
    (features on loopback only), `service` whether it is reachable beyond the box's host (a
    Kubernetes Service port, admitted by the NetworkPolicy); feature ports are not.
    - manifest: a normalized manifest
  */
  listeners =
    { manifest }:
    let
      m = manifest;
      relay = m.sovereign_mesh.relay;
      programmes = programsLib.programsFor { inherit manifest; };
      featureProgrammes = filter (
        p:
        p.port > 0
        && strings.hasPrefix {
          prefix = "feature:";
          string = p.origin;
        }
      ) programmes;
      # Named after the box programme serving it (E006 keeps its port apart from the API's).
      relayProgramme = head (filter (p: p.origin == "box" && p.port == relay.port) programmes);
    in
    [
      {
        name = "api";
        inherit (m.api) port bind;
        service = true;
      }
      {
        name = "metrics";
        port = m.observability.metrics_port;
        bind = m.observability.metrics_bind;
        service = true;
      }
    ]
    ++ (
      if relay.enabled && relay.expose then
        [
          {
            inherit (relayProgramme) name;
            inherit (relay) port bind;
            service = true;
          }
        ]
      else
        [ ]
    )
    ++ map (p: {
      inherit (p) name port;
      bind = "127.0.0.1";
      service = false;
    }) featureProgrammes;

  /**
    Names of the variables the box reads from its environment (never their values), sorted:
    the http integrations' token_env, the memory connection_env, enabled providers' env_var and,
    for a mesh host on Postgres, mesh.registry_connection_env.
    - manifest: a normalized manifest
  */
  passThroughEnv =
    { manifest }:
    let
      m = manifest;
      meshRegistry =
        if m.mesh.mode == "host" && m.mesh.registry == "postgres" then [ m.mesh.registry_connection_env ] else [ ];
    in
    sort (a: b: a < b) (
      strings.unique (
        filter (n: n != "") (
          map (s: m.integrations.${s}.token_env) (
            filter (s: facts.slots.${s}.integration == "http") (attrNames facts.slots)
          )
          ++ [ m.integrations.memory.connection_env ]
          ++ map (p: m.providers.${p}.env_var) (filter (p: m.providers.${p}.enabled) (attrNames m.providers))
          ++ meshRegistry
        )
      )
    );

  /**
    The probes of the box, in seconds: `/ready` (readiness, compose's healthcheck), `/livez`
    (liveness), on the API port; a failed check counts after `retries` misses; the box gets
    `startPeriodSec` (the seal timeout plus 10 s) to come up before a miss counts.
    - manifest: a normalized manifest
  */
  probes =
    { manifest }:
    {
      port = manifest.api.port;
      readyPath = "/ready";
      livePath = "/livez";
      intervalSec = 10;
      timeoutSec = 5;
      retries = 3;
      startPeriodSec = manifest.bootstrap.seal_timeout_sec + 10;
      stopGraceSec = 30;
    };

  /**
    The audit labels: the manifest's sha256 and, per applied exception, its reason.
    - manifest: a normalized manifest
    - security: the merged settings (lib/security.nix securityFor)
  */
  auditLabels =
    { manifest, security }:
    {
      "dev.agentbox.manifest.sha256" = manifestLib.manifestSha256 { inherit manifest; };
    }
    // listToAttrs (
      map (n: {
        name = "dev.agentbox.exception.${n}";
        value = security.exceptions.${n};
      }) (attrNames security.exceptions)
    );

  /**
    A memory size as the manifest and tmpfs options write it ("512m", "4g", "1024k", "65536")
    as a Kubernetes quantity ("512Mi", "4Gi", "1024Ki", "65536"): the same number of bytes.
    - size: the size text
  */
  quantity =
    size:
    let
      parts = match "([0-9]+)([kmgKMG]?)" size;
      units = {
        "" = "";
        k = "Ki";
        m = "Mi";
        g = "Gi";
        K = "Ki";
        M = "Mi";
        G = "Gi";
      };
    in
    if parts == null then
      throw "box-service.quantity: \"${size}\" is not a size (a number with an optional k, m or g)"
    else
      head parts + units.${builtins.elemAt parts 1};

  /**
    The size= option of tmpfs options ("uid=1000,gid=1000,size=64m" → "64m"), or null.
    - options: the tmpfs options text
  */
  tmpfsSize =
    options:
    let
      hits = filter (o: strings.hasPrefix {
        prefix = "size=";
        string = o;
      }) (strings.splitString {
        sep = ",";
        string = options;
      });
    in
    if hits == [ ] then null else builtins.substring 5 (-1) (head hits);
}
