// The agent sandbox the local orchestrator spawns through: capability probe, per-agent policy, fail-closed refusals.
import { mkdir, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../errors.js';
import { AgentPathAccess, type HostIds } from './agent-ids.js';
import { AgentUids } from './agent-uids.js';
import { installedLauncher, probeLauncher, type SandboxCapability } from './launcher-binary.js';
import { NamespaceSandbox, READY_FD, STATUS_FD, type NamespacesStatus } from './namespace-sandbox.js';
import { DEVICES, grantableRoots, launcherArgv, sizeBytes, SYSTEM_READ_ONLY, within, type SandboxPolicy } from './sandbox-policy.js';
import { hiddenPaths, type SandboxSettings } from './sandbox-settings.js';
import { removeTree } from './remove-tree.js';

// Refusals are plain ApiErrors (400, 409, 503): adapters/adapter.ts names this module, so it must not import back into adapters/.

/** The sandbox is on but cannot be enforced here: 503, naming what is missing. */
export class SandboxUnavailableError extends ApiError {
  override name = 'SandboxUnavailableError';
  constructor(missing: string) {
    super(
      'ABX_ERR_SANDBOX_UNAVAILABLE',
      `agents run confined (sandbox.enabled = true) but this host cannot enforce it: ${missing}. No agent was started; fix the host, or set sandbox.enabled = false with security.audit_acknowledged = true (docs/user/sandbox.md)`,
    );
  }
}

/** What /health and /v1/meta say about agent confinement. */
export interface SandboxStatus {
  /** sandbox.enabled. */
  enabled: boolean;
  /** `confined` (enforced), `unconfined` (turned off in the manifest), `unavailable` (on, but this host cannot enforce it: spawns are refused) or `unknown` (not probed yet). */
  mode: 'confined' | 'unconfined' | 'unavailable' | 'unknown';
  landlockAbi?: number;
  requiredAbi?: number;
  missing?: string;
  /** The namespace layer: sandbox.namespaces and whether agents run in bubblewrap here. */
  namespaces: NamespacesStatus;
}

/** A spawn rewritten to run through the launcher; `release` frees what the agent was given once it has exited. */
export interface ConfinedSpawn {
  command: string;
  args: string[];
  /** Variables the box sets for the agent (TMPDIR and HOME: its private temporary directory). */
  env: Record<string, string>;
  /** Host ids to spawn with (bubblewrap when the box runs as root: agents run unprivileged). */
  ids?: HostIds;
  /** Give the spawn a pipe as fd 3 and count it started once the launcher wrote to it (see launcherReady). */
  readyFd?: boolean;
  /** Processes of the agent's tree that are the sandbox's own, not the agent's (its process budget leaves them out). */
  overhead?: number;
  /**
   * The spawned process is the launcher's keeper (agentbox-keeper.c): SIGTERM to it (not to its
   * group) reaches every process of the agent once, SIGUSR1 kills them all; it ends last.
   */
  keeper?: boolean;
  /** Every process the agent starts stays a descendant of the spawned process (the keeper is their subreaper; bubblewrap's PID namespace has its init). */
  contained?: boolean;
  /**
   * The ready pipe (readyFd) stays open after the ready byte for the launcher's reports: the
   * keeper, or the waiting parent in bubblewrap, writes `limit:memory <bytes>` when its memory
   * backstop ended the agent (keeper-reports.ts).
   */
  limitReports?: boolean;
  release(): Promise<void>;
}

/** A spawn left as asked: the sandbox is off. */
export function unconfined(agent: { command: string; args: readonly string[] }): ConfinedSpawn {
  return { command: agent.command, args: [...agent.args], env: {}, release: async () => {} };
}

/**
 * Processes bubblewrap adds to an agent's tree: the launcher's --wrap that keeps signals as for a
 * plain spawn, bwrap, its init in the PID namespace, the launcher waiting as the agent's parent
 * for its exact status, the forwarder.
 */
const SANDBOX_PROCESSES = 5;
/** Without bubblewrap: the keeper the agent's processes descend from. */
const KEEPER_PROCESSES = 1;
/**
 * The launcher's memory backstop (the keeper's, or the waiting parent's in bubblewrap), as a
 * multiple of the agent's memory budget. The budget itself is judged by PSS once a second; the
 * launcher looks at resident memory (at least the PSS: shared pages count in each process) every
 * few milliseconds near the line, so that between two samples an agent of many processes ends
 * below 1.5 times its budget (docs/user/sandbox.md, "Memory").
 */
export const MEMORY_BACKSTOP_FACTOR = 1.25;

/**
 * What agents may read of the installation: its code and dependencies, never the whole directory.
 * In local mode the installation is a checkout where other files appear later (another box's
 * root, a core file); only these entries, as they are when the sandbox starts, are granted.
 */
export const INSTALLATION_ENTRIES = ['dist', 'node_modules', 'config', 'schema', 'package.json'] as const;

/** Confines the agents of one box. One instance per box; the orchestrator calls {@link confine} per spawn. */
export class AgentSandbox {
  readonly #live = new Map<string, string>();
  /** Each running agent's private temporary directory, which a command exec'd into it shares. */
  readonly #tmps = new Map<string, string>();
  #capability: Promise<SandboxCapability> | undefined;
  #probed: SandboxCapability | undefined;
  #readOnly: string[] | undefined;
  readonly #namespaces: NamespaceSandbox;
  /** When the box runs as root: each agent name runs as a uid of its own, given what it may reach. */
  readonly #access: AgentPathAccess | undefined;
  /** The per-name uids behind #access (a root box). */
  readonly #uids: AgentUids | undefined;

  constructor(readonly settings: SandboxSettings) {
    const { paths } = settings;
    const uids =
      process.getuid?.() === 0
        ? new AgentUids({
            root: path.resolve(paths.root),
            stateFile: path.join(paths.stateDir, 'agent-uids.jsonl'),
            ...(settings.agentUidClaims ? { claimsDir: settings.agentUidClaims } : {}),
          })
        : undefined;
    this.#uids = uids;
    this.#access = uids ? new AgentPathAccess(paths.root, uids) : undefined;
    this.#namespaces = new NamespaceSandbox({
      namespaces: settings.enabled ? settings.namespaces : 'off',
      // Agents reach the API and the egress proxy on their usual loopback ports, forwarded to these
      // sockets: the API's is bridged here, the proxy listens on its own (egress/proxy-main.ts).
      bridges: [
        { socket: paths.sandboxApiSocket, port: () => settings.apiPort() },
        { socket: paths.sandboxEgressSocket, port: () => settings.egressPort(), servedElsewhere: true },
      ],
      root: paths.root,
      ...(this.#access ? { access: this.#access } : {}),
      // Clients that ignore the proxy variables reach the allowed ports by name all the same.
      transparent: { ports: () => settings.egressAllowPorts ?? [], via: paths.sandboxEgressSocket },
      ...(settings.proc ? { proc: settings.proc } : {}),
      ...(settings.bwrap ? { bwrap: settings.bwrap } : {}),
    });
  }

  /**
   * Who a new agent named `name` will run as, so that what is made for it before it starts (a
   * fork's files) is its own: a uid of its own on a root box with the sandbox on, else undefined
   * (the box's own ids, as the agent's). `offered`: the spare ids a warm copy was built for
   * (spareOwners), which a name that never ran takes as its own.
   */
  async agentOwner(name: string, offered?: HostIds): Promise<HostIds | undefined> {
    if (!this.settings.enabled || !this.#access) return undefined;
    if (offered && (await this.#uids?.adoptSpare(name, offered.uid))) return offered;
    return this.#access.idsFor(name);
  }

  /**
   * Where warm copies get their owners when agents have uids of their own (a root box with the
   * sandbox on): spare ids, so that a fork of a new name takes its copy without a chown of every
   * entry; undefined otherwise (copies are the box's, as its agents' files are).
   */
  spareOwners(): { lend(): Promise<HostIds>; giveBack(ids: HostIds): void } | undefined {
    const uids = this.#uids;
    if (!this.settings.enabled || !uids) return undefined;
    return { lend: () => uids.spareIds(), giveBack: (ids) => uids.releaseSpare(ids.uid) };
  }

  /** The launcher this sandbox uses. */
  get launcher(): string {
    return this.settings.launcher ?? installedLauncher();
  }

  /**
   * Probe the launcher and kernel (once; later calls share the result), and user namespaces
   * (opening the sockets forwarders reach when bubblewrap is used). Never throws but for a socket
   * that cannot be opened.
   */
  async start(): Promise<SandboxCapability> {
    this.#capability ??= probeLauncher(this.launcher, this.settings.requireAbi).then((c) => (this.#probed = c));
    const capability = await this.#capability;
    if (capability.enforceable) await this.#namespaces.start();
    return capability;
  }

  /** Close the forwarders' sockets (start opens them again). */
  async close(): Promise<void> {
    this.#access?.clear();
    await this.#namespaces.close();
  }

  /** The capability probe's result for /health and /v1/meta. */
  status(): SandboxStatus {
    const { enabled } = this.settings;
    const c = this.#probed;
    const namespaces = this.#namespaces.status();
    if (!c) return { enabled, mode: enabled ? 'unknown' : 'unconfined', namespaces };
    const mode = !enabled ? 'unconfined' : c.enforceable ? 'confined' : 'unavailable';
    return { enabled, mode, landlockAbi: c.landlockAbi, requiredAbi: c.requiredAbi, ...(c.missing ? { missing: c.missing } : {}), namespaces };
  }

  /**
   * The spawn of agent `id` in `cwd` (a real directory under `workspace`) as the launcher runs it.
   * Refuses (fail closed) when the host cannot enforce the policy, when `cwd` is the workspace
   * itself, and when it is, holds or lies inside the directory of an agent still running: each
   * agent writes only its own directory. Unchanged when the sandbox is off.
   */
  async confine(
    agent: { id: string; name: string; command: string; args: readonly string[]; cwd: string; workspace: string; memoryBudget?: number },
    options: { joining?: string } = {},
  ): Promise<ConfinedSpawn> {
    if (!this.settings.enabled) return unconfined(agent);
    const capability = await this.start();
    if (!capability.enforceable) throw new SandboxUnavailableError(capability.missing ?? 'the capability probe failed');
    this.#namespaces.checkUsable();
    if (agent.cwd === agent.workspace)
      throw new ApiError(
        'ABX_ERR_VALIDATION',
        'working directory: the workspace itself is shared by every agent; a confined agent writes only its own directory (omit cwd for <workspace>/<name>, or name a subdirectory)',
      );
    const { paths, limits } = this.settings;
    let tmp: string;
    let release: () => Promise<void>;
    if (options.joining !== undefined) {
      // A command exec'd into a running agent: exactly its directories, which stay the agent's (it releases them).
      const joined = this.#tmps.get(options.joining);
      if (joined === undefined || this.#live.get(options.joining) !== agent.cwd)
        throw new ApiError('ABX_ERR_CONFLICT', `agent ${options.joining} is not running confined in ${path.relative(agent.workspace, agent.cwd)}`);
      tmp = joined;
      release = async () => {};
    } else {
      for (const [other, dir] of this.#live) {
        if (within(agent.cwd, dir) || within(dir, agent.cwd))
          throw new ApiError(
            'ABX_ERR_CONFLICT',
            `working directory ${path.relative(agent.workspace, agent.cwd)} overlaps the directory of running agent ${other}; each confined agent writes only a directory of its own`,
          );
      }
      await mkdir(paths.tmpDir, { recursive: true });
      const own = await mkdtemp(path.join(paths.tmpDir, 'agent-'));
      tmp = own;
      this.#live.set(agent.id, agent.cwd);
      this.#tmps.set(agent.id, own);
      release = async () => {
        this.#live.delete(agent.id);
        this.#tmps.delete(agent.id);
        await removeTree(own);
      };
    }
    // In bubblewrap the process limit is the agent's own (its user namespace), and the launcher
    // forwards the loopback ports of the API and the egress proxy to the box's sockets.
    const transparent = this.#namespaces.transparent();
    const namespaced = this.#namespaces.active
      ? { forwards: this.#namespaces.forwards(), readyFd: READY_FD, statusFd: STATUS_FD, ownIpc: true, ...(transparent ? { transparent } : {}) }
      : undefined;
    const policy: SandboxPolicy = {
      readOnly: this.#readOnlyRoots(),
      readWrite: [agent.cwd, tmp],
      devices: DEVICES,
      // Under transparent egress also the forwarder's DNS and its ports: in the agent's own network
      // namespace every address is the forwarder's, on loopback.
      connectPorts: [...new Set([this.settings.apiPort(), this.settings.egressPort(), ...(transparent ? [53, ...transparent.ports] : [])])].filter(
        (p): p is number => p !== undefined && p > 0,
      ),
      rlimits: {
        dataBytes: sizeBytes(limits.memory),
        cpuSeconds: limits.cpu_seconds,
        openFiles: limits.open_files,
        fileSizeBytes: sizeBytes(limits.file_size),
        ...(namespaced ? { processes: limits.processes } : {}),
      },
      ...(this.settings.requireAbi !== undefined ? { requireAbi: this.settings.requireAbi } : {}),
      ...namespaced,
    };
    const env = { TMPDIR: tmp, HOME: tmp };
    try {
      // A root box runs each agent name as a uid of its own, so that an agent shares no uid with the
      // box's files and processes, nor with another agent.
      const ids = this.#access
        ? await this.#access.idsFor(agent.name).catch((err: Error) => {
            throw new ApiError('ABX_ERR_CONFLICT', `cannot give agent "${agent.name}" a uid of its own: ${err.message}`);
          })
        : undefined;
      // The launcher that stays beside the agent (the keeper, or the waiting parent in bubblewrap) is its memory backstop between two samples.
      const memoryLimit = agent.memoryBudget ? agent.memoryBudget * MEMORY_BACKSTOP_FACTOR : undefined;
      const reports = memoryLimit ? { limitReports: true } : {};
      if (namespaced) {
        const [command, ...args] = [...launcherArgv(this.launcher, { ...policy, ...(memoryLimit ? { memoryLimit } : {}) }), agent.command, ...agent.args];
        return {
          ...(await this.#namespaces.wrap([command!, ...args], policy, agent.cwd, ids)),
          env,
          release,
          overhead: SANDBOX_PROCESSES,
          contained: true,
          ...reports,
        };
      }
      // The launcher alone: it stays as the keeper of the agent's processes.
      const [command, ...args] = [
        ...launcherArgv(this.launcher, { ...policy, keep: true, readyFd: READY_FD, ...(memoryLimit ? { memoryLimit } : {}) }),
        agent.command,
        ...agent.args,
      ];
      if (this.#access && ids)
        await this.#access.prepare(policy.readOnly, policy.readWrite, ids).catch((err: Error) => {
          throw new ApiError('ABX_ERR_CONFLICT', `cannot sandbox the agent: ${err.message}`);
        });
      return {
        command: command!,
        args,
        env,
        release,
        overhead: KEEPER_PROCESSES,
        keeper: true,
        contained: true,
        readyFd: true,
        ...reports,
        ...(ids ? { ids } : {}),
      };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** System directories, the installation (Node and the agent's tooling) and any extra roots, minus the box's private directories. */
  #readOnlyRoots(): string[] {
    if (!this.#readOnly) {
      // The installation holds the launcher two levels below its root (dist/native/…).
      const installation = path.resolve(path.dirname(this.launcher), '../..');
      const node = path.resolve(path.dirname(process.execPath), '..');
      const roots = [...SYSTEM_READ_ONLY, ...INSTALLATION_ENTRIES.map((e) => path.join(installation, e)), node, ...(this.settings.extraReadOnly ?? [])];
      this.#readOnly = grantableRoots(roots, hiddenPaths(this.settings.paths));
    }
    return this.#readOnly;
  }
}
