// The commented starter manifest written by `agentbox init`; the reference agentbox.toml is
// this text for standalone mode (kept identical by `npm run generate`).

/** Mesh modes a starter can be written for. */
export type StarterMode = 'standalone' | 'client' | 'host';

/** Options of the starter text. */
export interface StarterOptions {
  mode: StarterMode;
  /** Value of `#:schema` (a path or URL to agentbox.schema.json) for TOML editors. */
  schemaRef: string;
  /** mesh.host_url for client mode. */
  hostUrl?: string;
}

/** The starter manifest text for `options`. It validates with no errors or warnings. */
export function starterManifest(options: StarterOptions): string {
  const mesh =
    options.mode === 'client'
      ? `mode = "client"\n# The mesh host's API; this box registers there and heartbeats every interval.\nhost_url = "${options.hostUrl ?? 'http://127.0.0.1:9090'}"\nheartbeat_interval_sec = 30`
      : options.mode === 'host'
        ? `mode = "host"\n# Members heartbeat at this interval; one that misses three is evicted.\nheartbeat_interval_sec = 30`
        : `mode = "standalone"\n# host_url = "http://mesh-host:9090"   # for mode = "client"\n# heartbeat_interval_sec = 30`;
  return `#:schema ${options.schemaRef}
# agentbox.toml — describes one box. Every key is optional; an absent key takes the default
# shown in docs/user/manifest.md. Check this file with \`npx agentbox config validate\` and
# see every resolved value with \`npx agentbox config show\`.

[agentbox]
# A DNS label: the compose project, the container hostname, the mesh name.
name = "agentbox"

[api]
# The management API: probes (/livez, /ready, /health), /v1/meta and the adapter routes.
port = 9090
bind = "127.0.0.1"

[observability]
# Prometheus metrics are served on their own listener at :metrics_port/metrics.
metrics_port = 9091
log_level = "info"
# otlp_endpoint = "http://127.0.0.1:4318/v1/traces"   # export traces over OTLP/HTTP

[adapters]
# Each slot is local (embedded state on the box's volume), external (shared backend, needs
# mesh.mode client or host and an endpoint under [integrations.<slot>]) or off.
beads = "local-sqlite"
pods = "local-fs"
memory = "local-ruvector"
events = "local-jsonl"
orchestrator = "local-procmgr"
# Slots whose failure makes /ready fail; the orchestrator always counts.
critical = ["orchestrator"]

[integrations.memory]
# Vector size for every memory adapter (the built-in text embedder produces this size).
dimension = 384
# For memory = "external-pg": name the variable that holds the connection string —
# never write the string itself here.
# connection_env = "AGENTBOX_PG_URL"

[mesh]
${mesh}

[sovereign_mesh]
# Nostr: the box's own identity signs what it publishes.
enabled = false
publish_agent_events = false
relays = []

[features]
# Each feature enabled needs [security.exceptions.<name>] with a reason, e.g.
#   playwright = true
#   [security.exceptions.playwright]
#   reason = "agents run browser tests"
#   tmpfs = ["/dev/shm"]
desktop = false
code_server = false
playwright = false
gaussian_splatting = false
telegram_mirror = false
gpu = "none"

[security]
# Refuse to boot when the image root is writable.
strict_immutable = true
# Set to true after reviewing exceptions that add capabilities or devices.
audit_acknowledged = false

[bootstrap]
# /ready waits for every readiness-required programme; give up (BootstrapSealTimeout) after this.
seal_timeout_sec = 120

[resources]
memory = "4g"
cpus = 2
pids = 512

# Operator-defined programmes run by supervisord next to the box's own:
# [programs.worker]
# command = "/usr/bin/env"
# args = ["node", "/workspace/worker.js"]
# priority = 500
# required_for_readiness = true
# environment = { WORKER_MODE = "batch" }
# autorestart = "on-failure"

# Model providers: name the variable that holds each key, never the key itself.
# [providers.anthropic]
# env_var = "ANTHROPIC_API_KEY"
`;
}
