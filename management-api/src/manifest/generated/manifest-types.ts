// generated from schema/agentbox.schema.json by `npm run generate` — do not edit
// The normalized manifest: the schema with every default applied.

/**
 * The Agentbox manifest: one TOML file that describes a box. Every key has a default, so an empty manifest is valid and means the embedded default (standalone, all local adapters).
 */
export interface Manifest {
  /**
   * Identity of the box.
   */
  agentbox: {
    /**
     * Name of the box: a DNS label (lower-case letters, digits and '-', at most 63 characters). Used as the compose project, the container hostname and the mesh registration name.
     */
    name: string;
  };
  /**
   * The management API (fastify) that answers probes, metadata and adapter routes.
   */
  api: {
    /**
     * TCP port of the management API.
     */
    port: number;
    /**
     * Host address the API is reachable on: the local embedded mode listens there and the generated compose file publishes the port there. Inside the container the API always listens on every interface of the box's private network namespace.
     */
    bind: string;
  };
  /**
   * Metrics, traces and logs.
   */
  observability: {
    /**
     * TCP port of the Prometheus exposition endpoint (/metrics), served on its own listener.
     */
    metrics_port: number;
    /**
     * Host address the metrics endpoint is reachable on (same meaning as api.bind).
     */
    metrics_bind: string;
    /**
     * OTLP/HTTP traces endpoint (for example http://collector:4318/v1/traces). Empty disables trace export.
     */
    otlp_endpoint: string;
    /**
     * Minimum level of the JSON (pino) logs.
     */
    log_level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  };
  /**
   * The event log as an audit trail others can check: the local-jsonl log is kept as an RFC 6962 Merkle tree whose checkpoints the box signs (see docs/user/audit.md).
   */
  audit: {
    /**
     * Seconds between signed checkpoints (C2SP tlog-checkpoint) of the local-jsonl event log. One is signed only when the log grew since the last, and always when the API stops.
     */
    checkpoint_interval_sec: number;
  };
  /**
   * Which implementation fills each of the five adapter slots: a local one (embedded state), an external one (a shared backend), or off.
   */
  adapters: {
    /**
     * Task receipts (epics, children, claims, outcomes).
     */
    beads: 'local-sqlite' | 'external-http' | 'off';
    /**
     * Solid-style pod storage (resources and containers).
     */
    pods: 'local-fs' | 'external-solid' | 'off';
    /**
     * Vector memory (store and nearest-neighbour search by namespace).
     */
    memory: 'local-ruvector' | 'external-pg' | 'off';
    /**
     * Event sink (append, subscribe, query).
     */
    events: 'local-jsonl' | 'external-http' | 'off';
    /**
     * Agent processes (spawn, list, stream output, terminate).
     */
    orchestrator: 'local-procmgr' | 'external-stdio' | 'off';
    /**
     * Slots whose failure makes /ready answer 503. The orchestrator is always critical; list others (for example events, for a box that must not act without an audit trail).
     */
    critical: ('beads' | 'pods' | 'memory' | 'events' | 'orchestrator')[];
    /**
     * How long each slot's connect() may take before the slot is degraded (or, for a critical slot, the API exits).
     */
    connect_timeout_sec: number;
  };
  /**
   * Endpoints of the external adapters. Secrets are never written here: name an environment variable or a secret file that holds them.
   */
  integrations: {
    beads: HttpIntegration;
    pods: HttpIntegration;
    events: HttpIntegration;
    /**
     * The external-pg memory store and the vector dimension used by every memory adapter.
     */
    memory: {
      /**
       * NAME of the environment variable holding the Postgres connection string (never the string itself).
       */
      connection_env: string;
      /**
       * Path of a 0600 secret file holding the Postgres connection string.
       */
      connection_file: string;
      /**
       * Table that holds the vectors (created if absent).
       */
      table: string;
      /**
       * Dimension of every stored vector; the built-in text embedder produces vectors of this size.
       */
      dimension: number;
    };
    /**
     * The external-stdio orchestrator: a command spoken to with JSON-RPC 2.0 over its stdin/stdout.
     */
    orchestrator: {
      /**
       * Absolute path of the orchestrator command.
       */
      command: string;
      /**
       * Arguments passed to the orchestrator command.
       */
      args: string[];
    };
  };
  /**
   * Membership of a host mesh: register, heartbeat, eviction, deregister.
   */
  mesh: {
    /**
     * standalone: no mesh, no network call to any host. client: register with the host at host_url, heartbeat, deregister on stop (state in /health and /v1/meta). host: accept registrations from allowed_pubkeys, evict members that miss three heartbeats, list them at GET /v1/mesh/members.
     */
    mode: 'standalone' | 'client' | 'host';
    /**
     * Mode client: URL of the mesh host's API; the box registers there at start, heartbeats, and deregisters when it stops.
     */
    host_url: string;
    /**
     * Modes client and host: the base URL other boxes of the mesh reach this box's API at (http or https, no user name, password, query or fragment; rule E050): a client registers it as its api_endpoint, a host replica announces it to members for failover. Empty: the variable AGENTBOX_ADVERTISE_URL of the box's environment when set (agentbox render --target kubernetes sets it per pod from the pod's DNS name or address), else the address the API listens on (api.bind and api.port), which other machines may not reach.
     */
    advertise_url: string;
    /**
     * Mode host: seconds between the heartbeats the host asks of its members (told to them at registration); a member that misses three is evicted. Mode client: ignored, the host decides.
     */
    heartbeat_interval_sec: number;
    /**
     * Public keys (64 hex characters or npub) of operators who may call the management API with a NIP-98 signed request instead of the bearer API key. A valid signature from any other key is refused (401).
     */
    operator_pubkeys: string[];
    /**
     * Public key (64 hex characters or npub) of the mesh host: it may call the management API with NIP-98 signed requests, like an operator key. Empty: none.
     */
    host_pubkey: string;
    /**
     * Mode host: public keys (64 hex characters or npub, see `agentbox identity`) of the boxes that may register with this host (POST /v1/register, signed with NIP-98). A valid signature from any other key is refused (401).
     */
    allowed_pubkeys: string[];
    /**
     * Mode host: where the members are kept. sqlite: a file on the state volume (one host). postgres: a shared Postgres database, so several host replicas behind one address serve the same mesh.
     */
    registry: 'sqlite' | 'postgres';
    /**
     * Mode host, registry postgres: NAME of the environment variable holding the Postgres connection string (never the string itself).
     */
    registry_connection_env: string;
    /**
     * Mode host, registry postgres: path of a 0600 secret file holding the Postgres connection string.
     */
    registry_connection_file: string;
  };
  /**
   * Nostr: the box's own identity, publishing of agent events to relays, and an optional embedded relay.
   */
  sovereign_mesh: {
    /**
     * Turn the Nostr integration on.
     */
    enabled: boolean;
    /**
     * Publish agent events (spawn, exit, crash loop, bead transitions), signed by the box's identity, to the relays (kind 4750, see docs/user/mesh.md). /ready then requires at least one reachable relay.
     */
    publish_agent_events: boolean;
    /**
     * Relay URLs (ws:// or wss://) to publish agent events to; each gets its own connection and a bounded queue.
     */
    relays: string[];
    /**
     * An embedded Nostr relay served by the box (supervisord programme relay, command agentbox-relay), its events stored in SQLite on the state volume. Agent events are also published to it when publish_agent_events is on. See docs/user/mesh.md.
     */
    relay: {
      /**
       * Run the embedded relay. It is required for readiness: the bootstrap seal, and so /ready, waits for it to run.
       */
      enabled: boolean;
      /**
       * TCP port of the embedded relay.
       */
      port: number;
      /**
       * Address the relay listens on. A wildcard address (0.0.0.0 or ::) requires expose = true.
       */
      bind: string;
      /**
       * Publish the relay port beyond the host's loopback: the generated compose file maps the port (on bind, so bind a wildcard) only when this is true. Otherwise only the box's own processes reach the relay.
       */
      expose: boolean;
      /**
       * Which events the relay stores: allowlist (only allowed_pubkeys and the box's own key), signed-only (any author, checked for a valid id and signature before anything else), open (any author; the relay engine still refuses an event whose id or signature is wrong). A refused event gets OK false "blocked: …" naming the policy. Reading is open to every client.
       */
      ingress_policy: 'allowlist' | 'signed-only' | 'open';
      /**
       * Hex public keys (64 characters) accepted by the allowlist policy, besides the box's own identity, which is always accepted.
       */
      allowed_pubkeys: string[];
      /**
       * Event kinds the embedded relay accepts under every policy; an event of another kind is refused (OK false "blocked: …"). Empty accepts every kind.
       */
      allowed_kinds: number[];
    };
  };
  /**
   * Optional capabilities baked into the image. Each enabled feature needs its matching [security.exceptions.<name>] with a reason.
   */
  features: {
    /**
     * A virtual desktop (X server and VNC) for agents that drive GUIs. Not in this build: refused by rule E036 (use playwright for headless browsers).
     */
    desktop: boolean;
    /**
     * code-server, a browser IDE on the workspace.
     */
    code_server: boolean;
    /**
     * Headless Chromium driven by Playwright.
     */
    playwright: boolean;
    /**
     * The Gaussian splatting toolchain (needs gpu = cuda).
     */
    gaussian_splatting: boolean;
    /**
     * Mirror agent events to a Telegram chat. Not in this build: refused by rule E036 (send events to such a service with adapters.events = external-http).
     */
    telegram_mirror: boolean;
    /**
     * GPU runtime: none, rocm (AMD) or cuda (NVIDIA).
     */
    gpu: 'none' | 'rocm' | 'cuda';
  };
  /**
   * The hardened baseline (read-only root, uid 1000, no capabilities) and the audited exceptions that add to it.
   */
  security: {
    /**
     * Refuse to boot when the image root is writable.
     */
    strict_immutable: boolean;
    /**
     * The operator has reviewed exceptions that add capabilities or devices, the sandbox-namespaces seccomp exception, or unconfined agents. Required when any exception sets cap_add or devices, with [security.exceptions.sandbox-namespaces], and with sandbox.enabled = false.
     */
    audit_acknowledged: boolean;
    /**
     * Additions to the baseline, one per feature that needs them: each enabled feature needs its own, with a reason. Exceptions only add privilege; they can never remove a baseline item. For example, for features.playwright = true:
     */
    exceptions: {
      desktop?: Exception;
      'gpu-rocm'?: Exception;
      'gpu-cuda'?: Exception;
      'gaussian-splatting'?: Exception;
      playwright?: Exception;
      'code-server'?: Exception;
      'telegram-mirror'?: Exception;
      /**
       * Exception for sandbox.namespaces in the container (not a feature): the compose service runs with a seccomp profile, written beside docker-compose.yml, that is Docker's default plus only what bubblewrap needs (clone/unshare of a new user namespace; mount, umount2, pivot_root), so that each agent gets its own user, network and PID namespaces. It takes a reason only, needs security.audit_acknowledged = true and has no Kubernetes form. See docs/user/sandbox.md.
       */
      'sandbox-namespaces'?: {
        /**
         * Why agents need their own namespaces in this box (kept in the audit trail).
         */
        reason: string;
      };
    };
  };
  /**
   * Operator-defined programmes supervised by supervisord, keyed by name, next to the box's own. For example:
   */
  programs: {
    [k: string]: Program | undefined;
  };
  /**
   * Boot sequencing.
   */
  bootstrap: {
    /**
     * Seconds to wait for every readiness-required programme to be RUNNING. Past it the seal listener logs BootstrapSealTimeout and records the programmes still pending in bootstrap.failed (so /ready and /health say why), and keeps waiting: the box seals if they come up later. Under 10 s a healthy but slow boot times out; over an hour a broken boot goes unnoticed for too long.
     */
    seal_timeout_sec: number;
  };
  /**
   * Container resource limits.
   */
  resources: {
    /**
     * Memory limit, a number with an optional unit k, m or g (for example 4g).
     */
    memory: string;
    /**
     * CPU limit (fractions allowed).
     */
    cpus: number;
    /**
     * Maximum number of processes in the container.
     */
    pids: number;
    /**
     * Free space the box keeps for its own writes (beads, events, the audit log, pid records) on the state volume and on the workspace, a number with an optional unit k, m or g: while either has less free, new agents are refused (ABX_ERR_DISK_LOW) and /ready answers 503 naming the path; both recover by themselves when space returns. See docs/user/sandbox.md.
     */
    min_free_disk: string;
  };
  /**
   * Confinement of every agent the local orchestrator starts: a launcher applies Landlock, a seccomp filter and rlimits before exec; the network is reached only through the box's allowlisting egress proxy. See docs/user/sandbox.md.
   */
  sandbox: {
    /**
     * Confine agents. false runs them unconfined with the API's own uid (warning rule; needs security.audit_acknowledged = true).
     */
    enabled: boolean;
    /**
     * bubblewrap per agent (own network, PID and user namespaces) on top of Landlock: auto uses it where user namespaces are allowed (local mode on a host), required refuses to spawn without it, off never uses it. In the container it needs the audit-acknowledged exception security.exceptions.sandbox-namespaces.
     */
    namespaces: 'auto' | 'required' | 'off';
    /**
     * Per-agent limits: rlimits set by the launcher and budgets sampled from /proc; an agent over a budget is terminated with the reason limit:<name>. A spawn request may lower them, never raise them.
     */
    limits: {
      /**
       * Memory per agent, a number with an optional unit k, m or g: RLIMIT_DATA and the budget of the agent's process tree (its PSS, sampled from /proc; over it the agent is terminated with limit:memory). At most resources.memory.
       */
      memory: string;
      /**
       * CPU seconds per agent: RLIMIT_CPU per process and the budget of the whole process tree, exited children included (over it: limit:cpu).
       */
      cpu_seconds: number;
      /**
       * Processes per agent (its whole tree at once), sampled from /proc (over it: limit:processes); also RLIMIT_NPROC inside a bubblewrap user namespace.
       */
      processes: number;
      /**
       * Open files per process (RLIMIT_NOFILE).
       */
      open_files: number;
      /**
       * Largest file an agent may write, a number with an optional unit k, m or g (RLIMIT_FSIZE).
       */
      file_size: string;
      /**
       * Disk per agent, a number with an optional unit k, m or g: the blocks allocated under its working directory and its private temporary directory (sparse files by what they hold, a hard-linked file once, links never followed), measured every 5 s; over it the agent is terminated with limit:disk. A tree the box cannot measure (an unreadable entry, a path beyond PATH_MAX) counts as over it. See docs/user/sandbox.md.
       */
      disk: string;
      /**
       * Entries (files, directories, links) under an agent's directories that the box measures for the disk budget and a snapshot may hold. An agent with more is terminated with limit:entries (its disk cannot be measured whole), a snapshot of more is refused, and so is a fork of a snapshot with more. Each walk looks at every entry (about 5 s of the box's CPU per million entries on a small machine), so walks of large trees are spaced out. See docs/user/sandbox.md.
       */
      entries: number;
    };
    /**
     * The egress proxy agents reach the network through (HTTP CONNECT and plain HTTP, default deny). Agents find it through HTTP_PROXY / HTTPS_PROXY / NO_PROXY.
     */
    egress: {
      /**
       * TCP port of the egress proxy on 127.0.0.1.
       */
      port: number;
      /**
       * Domains agents may reach: exact names (example.com) or *.suffix (*.example.com matches any subdomain, not example.com itself). Changeable at run time through the API. Loopback, link-local, private and metadata addresses are refused unless listed here.
       */
      allow_domains: string[];
      /**
       * Destination ports agents may reach on allowed domains.
       */
      allow_ports: number[];
      /**
       * In bubblewrap (sandbox.namespaces), also for clients that ignore HTTP_PROXY / HTTPS_PROXY (Node 20's fetch, Go, Rust, static binaries): names resolve inside the agent's network namespace and connections to them on allow_ports go to the egress proxy by name, with the agent's credential. Agents then run as uid 0 inside their user namespace (still the unprivileged uid outside), which bubblewrap needs to let the forwarder bind port 53 and ports below 1024, and bwrap's --disable-userns is not used (the seccomp filter still refuses new namespaces). See docs/user/sandbox.md.
       */
      transparent: boolean;
    };
  };
  /**
   * Agents the box starts by name. Profiles live under [agents.profiles.<name>], not [agents.<name>], so keys of [agents] itself (such as the image's agent packages) can never be mistaken for a profile. See docs/user/agents.md.
   */
  agents: {
    /**
     * Packages put into the image for agents, by nixpkgs attribute path ("ripgrep", "python3Packages.pytest"), on top of the default toolchain every image carries (bash, coreutils, git, curl, grep, sed, findutils, Node.js, Python 3, the CA bundle; docs/user/agents.md, Toolchains). Their commands are on agents' PATH. Built into the image, never installed at boot. Rules: E059 (an attribute path), E060 (each once), W023 (already in the default set).
     *
     * @maxItems 200
     */
    packages: string[];
    /**
     * Agent CLIs from the npm registry baked into the image at build time, each as name@exact-version (rule E058: a range or tag would make two builds of one manifest differ; E060: one version per package). Their commands are on agents' PATH; nothing is installed at boot. The Nix build fetches them as agents.lock.json beside the manifest lists them (`agentbox agents lock` writes it: every tarball's URL and integrity).
     *
     * @maxItems 50
     */
    npm: string[];
    /**
     * Agent profiles by name: the name a spawn request gives as profile, and its agents' default name. Claude Code and Codex CLI on a terminal, reaching their providers through the broker only (declare anthropic and openai under [providers] with a base_url; docs/user/agents.md). Claude Code finds the broker and the agent's token in ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY; Codex reads neither, so a shell declares the broker as its provider (a request that replaces its args restates the first three):
     */
    profiles: {
      [k: string]: AgentProfile | undefined;
    };
  };
  /**
   * What agents may do, decided per action on top of confinement: ordered rules over agent spawns, egress connections, provider calls and runtime changes of the egress allowlist, each allow, deny or ask (see docs/user/policy.md). The most specific matching rule decides (the most fields constrained, then the most literal characters); at equal specificity deny beats ask beats allow, then the first listed rule. Policy is an extra gate, never a widening: the egress allowlist and the provider configuration apply first. Absent, everything the box already allows stays allowed.
   */
  policy: {
    /**
     * The decision when no rule matches an action.
     */
    default: 'allow' | 'deny' | 'ask';
    /**
     * How an agent meets an ask, unless its spawn request says otherwise (POST /v1/agents autonomy): autonomous denies at once and tells the agent which rule asked; supervised holds the action as an approval request (GET /v1/approvals) until an operator approves or denies it, or approval_timeout_sec denies it.
     */
    autonomy: 'autonomous' | 'supervised';
    /**
     * How long a supervised agent's ask waits for a decision (POST /v1/approvals/{id}) before it is denied.
     */
    approval_timeout_sec: number;
    /**
     * Approval requests waiting at once, in all; one agent may hold at most a quarter of them (at least 1). An ask beyond either bound is denied at once, saying so.
     */
    max_pending_approvals: number;
    /**
     * The rules, in order (the order breaks a full tie only). A field left out matches anything; a rule without fields matches every action of its kind.
     *
     * @maxItems 10000
     */
    rules: PolicyRule[];
  };
  /**
   * Model providers available to agents, keyed by name. The key itself lives in the named environment variable, never in the manifest. For example:
   */
  providers: {
    [k: string]: Provider | undefined;
  };
}
/**
 * An HTTP endpoint and where its bearer token is kept.
 */
export interface HttpIntegration {
  /**
   * Base URL of the service.
   */
  url: string;
  /**
   * NAME of the environment variable holding the bearer token.
   */
  token_env: string;
  /**
   * Path of a 0600 secret file holding the bearer token.
   */
  token_file: string;
}
/**
 * An audited addition to the security baseline.
 */
export interface Exception {
  /**
   * Why this addition is needed (kept in the audit trail).
   */
  reason: string;
  /**
   * Extra tmpfs mounts, as container paths (for example /dev/shm).
   */
  tmpfs: string[];
  /**
   * Host devices passed in (for example /dev/dri). Requires security.audit_acknowledged.
   */
  devices: string[];
  /**
   * Linux capabilities added (for example SYS_ADMIN). Requires security.audit_acknowledged.
   */
  cap_add: string[];
  /**
   * Container runtime to use (for example nvidia); empty keeps the default. Only one runtime may be named across all exceptions.
   */
  runtime: string;
  /**
   * Extra volumes, as host:container[:ro] strings.
   */
  volumes: string[];
}
/**
 * A programme supervised by supervisord.
 */
export interface Program {
  /**
   * Absolute path of the executable.
   */
  command: string;
  /**
   * Arguments passed to the command.
   */
  args: string[];
  /**
   * Start order (lower starts first, stops last) among programmes that depends_on does not order. 1-99 are reserved for the box's own programmes.
   */
  priority: number;
  /**
   * The bootstrap seal (and so /ready) waits for this programme to be RUNNING.
   */
  required_for_readiness: boolean;
  /**
   * Names of other [programs] entries that must start before this one: the generated supervisord.conf raises this programme's priority past theirs when it is not already higher.
   */
  depends_on: string[];
  /**
   * TCP port the programme listens on (0 = none); checked against the box's other ports.
   */
  port: number;
  /**
   * Environment variables for the programme. Values are plain configuration, never secrets.
   */
  environment: {
    [k: string]: string | undefined;
  };
  /**
   * Restart policy: always, on-failure (an unexpected exit) or never.
   */
  autorestart: 'always' | 'on-failure' | 'never';
}
/**
 * An agent profile: what POST /v1/agents {"profile": NAME} starts. A spawn request may change only what docs/user/agents.md lists (name, args, cwd, added env, cols, rows, autonomy, lower limits and timeouts); never the command, providers or egress.
 */
export interface AgentProfile {
  /**
   * Executable, absolute or found on the agent PATH (for example "claude").
   */
  command: string;
  /**
   * Arguments; a spawn request may replace them.
   *
   * @maxItems 256
   */
  args: string[];
  /**
   * Non-secret variables for the agent. Names or values that look like secrets are refused (rule E053): an agent reaches its providers through the broker, never with a key.
   */
  env: {
    [k: string]: string | undefined;
  };
  /**
   * Working directory relative to the workspace (no absolute path, no ..; rule E056). Default: the agent's own directory <workspace>/<name>.
   */
  cwd?: string;
  /**
   * Names of [providers] this profile's agents may call through the broker (rule E054): only their <NAME>_BASE_URL variables are given, and the broker refuses them any other provider. Empty: none.
   */
  providers: string[];
  /**
   * Egress allowances of this profile's agents on top of sandbox.egress, theirs alone; the ports stay sandbox.egress.allow_ports.
   */
  egress: {
    /**
     * Extra domains this profile's agents may reach, in the grammar of sandbox.egress.allow_domains (rule E057).
     */
    allow_domains: string[];
  };
  /**
   * Budgets of this profile's agents, each at most sandbox.limits (rule E055); a key left out keeps sandbox.limits.
   */
  limits: {
    /**
     * Memory of the process tree, a number with an optional unit k, m or g.
     */
    memory?: string;
    /**
     * CPU seconds of the process tree.
     */
    cpu_seconds?: number;
    /**
     * Processes in the tree at once.
     */
    processes?: number;
    /**
     * Disk under its working and temporary directories, a number with an optional unit k, m or g.
     */
    disk?: string;
    /**
     * Entries (files, directories, links) under its directories the box measures and a snapshot may hold.
     */
    entries?: number;
  };
  /**
   * Run on a pseudo-terminal (GET /v1/agents/{id}/terminal).
   */
  tty: boolean;
  /**
   * End the agent this many seconds after its start (state terminated, reason timeout). A spawn request may lower it.
   */
  timeout_sec?: number;
  /**
   * End the agent after this many seconds without output (and, on a terminal, without input either): state terminated, reason idle. A spawn request may lower it.
   */
  idle_timeout_sec?: number;
  /**
   * Snapshot the working directory of this profile's agents every every_sec seconds while they run (label "checkpoint"), keeping the keep newest, so a wrong path can be undone (docs/user/files-and-snapshots.md, Checkpoints). A spawn request's own checkpoints replace these. Absent: none.
   */
  checkpoints?: {
    /**
     * Seconds between checkpoints.
     */
    every_sec: number;
    /**
     * How many of the newest checkpoints are kept; an older one is deleted as a newer one is made.
     */
    keep: number;
  };
}
/**
 * One rule of [policy]: the action it is about, its decision, and the fields it matches. Patterns: * matches any run of characters and ? one character; host is an exact name, *.suffix (subdomains only), a literal address or *.
 */
export interface PolicyRule {
  /**
   * A name for the rule, shown in decisions and the audit log beside its index.
   */
  id?: string;
  /**
   * What the rule is about: spawn (POST /v1/agents), egress (a connection through the egress proxy), provider (a call through the provider broker) or egress-change (PUT /v1/sandbox/egress).
   */
  action: 'spawn' | 'egress' | 'provider' | 'egress-change';
  /**
   * allow, deny, or ask (denied at once for an autonomous agent; for a supervised one, held as an approval request until an operator decides or the approval timeout denies it).
   */
  decision: 'allow' | 'deny' | 'ask';
  /**
   * spawn, egress, provider: the agent's name (pattern).
   */
  agent?: string;
  /**
   * spawn: the command (pattern); without a / it matches the command's last path segment, with one the command as written.
   */
  command?: string;
  /**
   * spawn: patterns for the first arguments, position by position (later arguments are free).
   *
   * @maxItems 64
   */
  args?: string[];
  /**
   * spawn: the working directory relative to the workspace (pattern; . when the request names none).
   */
  cwd?: string;
  /**
   * spawn: the profile the agent is started from (agents.profiles.<name>; pattern). An ad-hoc spawn has no profile, so a rule with this field never matches one; * matches every spawn by profile.
   */
  profile?: string;
  /**
   * egress, egress-change: the host as the agent names it (egress-change: an allow_domains entry being added); an exact name, *.suffix, a literal address or *.
   */
  host?: string;
  /**
   * egress, egress-change: the destination port (egress-change: an allow_ports entry being added).
   */
  port?: number;
  /**
   * egress, plain HTTP only: the request method (a CONNECT tunnel shows no method, so such a rule never matches one).
   */
  method?: string;
  /**
   * egress, plain HTTP only: the request path without its query (pattern; never matches a CONNECT tunnel, whose path the box cannot see).
   */
  path?: string;
  /**
   * provider: the provider's name under [providers] (pattern).
   */
  provider?: string;
}
/**
 * A model provider.
 */
export interface Provider {
  /**
   * NAME of the environment variable holding the provider's API key, in UPPER_SNAKE_CASE.
   */
  env_var: string;
  /**
   * Offer this provider to agents.
   */
  enabled: boolean;
  /**
   * Base URL of the provider's API. Agents then call it through the box's credential broker at <NAME>_BASE_URL with their own token; the broker adds the real key, which never enters an agent.
   */
  base_url: string;
}
