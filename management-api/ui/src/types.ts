// Shapes of the API answers the dashboard reads (a subset of the route schemas in management-api/src/routes/).

/** `{error, message}`: every API error body. */
export interface ErrorBody {
  error: string;
  message: string;
}

/** GET /ui/session and POST /ui/session. */
export interface SessionInfo {
  csrfToken: string;
  expiresAt: string;
  via: string;
}

/** One adapter slot in /health. */
export interface SlotHealth {
  impl: string;
  adapter?: string;
  critical?: boolean;
  state: string;
  reason?: string;
  since?: string;
}

/** One supervised programme in /health. */
export interface ProgramState {
  name: string;
  state: string;
  description?: string;
  pid?: number;
  startedAt?: number;
}

/** The `overview` topic of the dashboard stream. */
export interface Overview {
  ready: { status: number; body: { ready: boolean; since?: string; reason?: string; requirements?: string[]; missing?: string[]; degraded?: string[] } };
  health: {
    status?: string;
    /** The stream leaves out uptimeSec (it changes every second); the start time stays. */
    startedAt?: string;
    slots?: Record<string, SlotHealth>;
    programs?: { available: true; programs: ProgramState[] } | { available: false; error: string };
    sandbox?: SandboxStatus;
  };
  meta: {
    name?: string;
    version?: string;
    imageHash?: string;
    manifestSha256?: string;
    federation?: { mode?: string };
    identity?: { npub?: string };
    sandbox?: SandboxStatus;
  };
}

/** An agent record (GET /v1/agents items). */
export interface Agent {
  id: string;
  name: string;
  command: string;
  args?: string[];
  state: string;
  pid?: number;
  exitCode?: number;
  signal?: string;
  startedAt?: string;
  endedAt?: string;
  /** Why the box ended it: a budget (`limit:cpu`, …) or a deadline (`timeout`, `idle`). */
  reason?: string;
  /** Milliseconds from its start to its end, once ended. */
  durationMs?: number;
  /** The manifest profile it was started from (agents.profiles.<name>); absent for an ad-hoc spawn. */
  profile?: string;
  usage?: { rss_bytes?: number; pss_bytes?: number; cpu_seconds?: number; processes?: number; disk_bytes?: number; disk_entries?: number };
  limits?: { memory_bytes?: number; cpu_seconds?: number; processes?: number; disk_bytes?: number; entries?: number };
  /** Runs on a pseudo-terminal: the dashboard shows its terminal instead of the output panel. */
  tty?: boolean;
  /** While it runs with checkpoints: their plan and those kept so far. */
  checkpoints?: AgentCheckpoints;
}

/** One connection the egress proxy refused an agent (GET /v1/agents/:id `refusals`, newest last). */
export interface EgressRefusal {
  at: string;
  host: string;
  port: number;
  reason: string;
  /** What the operator would change to allow it (a manifest line, a command). */
  allowWith: string;
}

/** The checkpoints of an agent while it runs with them (its record's `checkpoints`). */
export interface AgentCheckpoints {
  everySec: number;
  keep: number;
  /** Checkpoints kept so far, oldest first. */
  made: string[];
}

/** GET /v1/agents/:id: the record, and where the box reports them, the agent's recent egress refusals. */
export interface AgentDetail {
  agent: Agent & { refusals?: EgressRefusal[] };
  refusals?: EgressRefusal[];
}

/** POST /v1/agents body (management-api/src/routes/agents-routes.ts `spawnBody`). */
export interface SpawnBody {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  limits?: { memory?: string; cpu_seconds?: number; processes?: number; disk?: string };
  tty?: boolean;
}

/** The agent sandbox as /health and /v1/meta report it (management-api/src/sandbox/sandbox-report.ts). */
export interface SandboxStatus {
  enabled?: boolean;
  mode?: 'confined' | 'unconfined' | 'unavailable' | 'unknown';
  landlockAbi?: number;
  requiredAbi?: number;
  missing?: string;
  namespaces?: { setting?: string; active?: boolean; reason?: string; proc?: string };
}

/** The egress policy (GET /v1/sandbox/egress). */
export interface EgressPolicy {
  port?: number;
  source?: string;
  allow_domains?: string[];
  allow_ports?: number[];
}

/** A topic that may be unavailable (slot off, not a mesh host). */
export interface Availability {
  available: boolean;
  reason?: string;
}

/** The `agents` topic. */
export interface AgentsTopic extends Availability {
  agents: Agent[];
  sandbox: EgressPolicy | null;
}

/** A bead (GET /v1/beads items). */
export interface Bead {
  id: string;
  kind?: string;
  title: string;
  body?: string;
  status: 'open' | 'claimed' | 'closed';
  claimedBy?: string;
  outcome?: string;
  createdAt?: string;
  updatedAt?: string;
}

/** The `beads` topic. */
export interface BeadsTopic extends Availability {
  ready: Bead[];
  beads: Bead[];
}

/** A mesh member (GET /v1/mesh/members items). */
export interface MeshMember {
  pubkey: string;
  npub?: string;
  /** The member box's `agentbox.name`, where it reports one. */
  name?: string;
  state: string;
  api_endpoint?: string;
  health?: Record<string, unknown> | null;
  capacity?: Record<string, unknown>;
  last_heartbeat_at?: string;
  evicted_at?: string | null;
}

/** The `mesh` topic: `host: false` on a box that is no mesh host (its `mode` says what it is). */
export interface MeshTopic extends Availability {
  host?: boolean;
  mode?: string;
  members: MeshMember[];
}

/** A stored event (GET /v1/events/stream data). */
export interface StoredEvent {
  id: string;
  seq: number;
  time: string;
  kind: string;
  source: string;
  data: Record<string, unknown>;
}

/** One chunk of agent output. */
export interface OutputChunk {
  seq: number;
  stream: string;
  time: string;
  text: string;
}

/** A pending approval request (GET /v1/approvals items; management-api/src/approvals/approval-request.ts). */
export interface ApprovalRequest {
  id: string;
  /** What a signed decision states: `sha256:` of {action, agent, arguments, policy}. */
  digest: string;
  action: 'spawn' | 'egress' | 'provider' | 'egress-change';
  agent: string | null;
  agentId: string | null;
  arguments: Record<string, unknown>;
  rule: { index: number; id?: string } | null;
  reason: string;
  policy: string;
  created: string;
  expires: string;
  state: string;
}

/** The `approvals` topic: the pending requests, oldest first. */
export interface ApprovalsTopic {
  approvals: ApprovalRequest[];
}

/** An open input request: an agent waiting for a person (GET /v1/input-requests items; management-api/src/input-requests/input-request.ts). */
export interface InputRequest {
  id: string;
  agentId: string;
  /** The agent's name. */
  agent: string;
  reason: 'prompt' | 'explicit';
  /** The prompt line that matched, or the agent's own question. */
  prompt: string;
  pattern?: string;
  /** The last lines of its screen (a prompt). */
  lines: string[];
  created: string;
  state: string;
}

/** The `inputs` topic: the open requests, oldest first. */
export interface InputsTopic {
  inputRequests: InputRequest[];
}

/** One name of a workspace directory (GET /v1/agents/:id/files/<dir>?list; management-api/src/workspace-files/file-read.ts). */
export interface WorkspaceEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  /** Permission bits as octal text ("0644"). */
  mode: string;
  mtime: string;
  /** A link's target (never followed). */
  target?: string;
}

/** A workspace directory's listing: the first names in sort order, `truncated` when there were more. */
export interface WorkspaceListing {
  path: string;
  entries: WorkspaceEntry[];
  truncated: boolean;
}

/** A workspace snapshot as GET /v1/snapshots lists it (the fields the dashboard shows). */
export interface SnapshotRecord {
  id: string;
  label?: string;
  createdAt: string;
  agent: { id: string; name: string; cwd: string };
  stats: { files: number; bytes: number; addedBytes: number; changed: number };
}

/** The copies of a snapshot built ahead for forks (GET /v1/snapshots/:sid `warm`, PUT /v1/snapshots/:sid/warm). */
export interface SnapshotWarm {
  wanted: number;
  ready: number;
  building: boolean;
  /** Why the last build failed: none is tried again until the copies are asked for again. */
  error?: string;
}

/** GET /v1/snapshots/:sid/diff?from= (management-api/src/snapshots/snapshot-diff.ts). */
export interface SnapshotDiff {
  from: string;
  to: string;
  counts: { added: number; deleted: number; modified: number };
  addedBytes: number;
  deletedBytes: number;
  changes: Array<{
    path: string;
    change: 'added' | 'deleted' | 'modified';
    type: 'file' | 'dir' | 'symlink';
    what?: string[];
    size?: number;
    sizeBefore?: number;
  }>;
  truncated: boolean;
  /** When truncated: the next page's cursor. */
  nextCursor?: string;
}
