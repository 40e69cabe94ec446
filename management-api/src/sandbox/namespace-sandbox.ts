// Per-agent bubblewrap for the local orchestrator: decides whether to use it, and wraps each spawn in it.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { AdapterConflictError, AdapterInputError } from '../adapters/adapter-errors.js';
import { agentHostIds, checkReachable, giveDirectory, openPathBelow, type HostIds } from './agent-ids.js';
import { bwrapArgv } from './bwrap-argv.js';
import { HostBridges } from './host-bridge.js';
import { namespacesVerdict, type NamespacesVerdict } from './namespaces-probe.js';
import { forwarderArgv } from './netns-forwarder.js';

/** `sandbox.namespaces` of the manifest. */
export type NamespacesSetting = 'auto' | 'required' | 'off';

/** What the namespace layer is configured by. */
export interface NamespaceSandboxOptions {
  /** `sandbox.enabled`: false turns this layer off too. */
  enabled: boolean;
  namespaces: NamespacesSetting;
  /** `sandbox.limits.processes`: RLIMIT_NPROC inside the agent's user namespace, where it counts per agent. */
  processes: number;
  /** Loopback ports agents reach (the API's and the egress proxy's) and the unix sockets that lead to them. */
  forwards: ReadonlyArray<{ port: number; socket: string }>;
  /** The sandbox launcher's argv, run inside before the agent command (`<launcher> -- <command>`); empty for none. */
  launcher?: readonly string[];
  /** The box's root directory (runtime paths' `root`): below it, directories are made searchable for an unprivileged agent. */
  root: string;
  /** Ids agents run as when the box runs as root (default nobody/nogroup). */
  rootIds?: HostIds;
  /** The box's search path, to find bwrap and prlimit (default: the API's PATH). */
  searchPath?: string;
}

/** How to start one agent. */
export interface WrappedSpawn {
  command: string;
  args: string[];
  /** Host ids to drop to before exec (only when the box runs as root). */
  ids?: HostIds;
  /** Give the process a pipe as fd 3 and await `ready` on it before the spawn counts as done. */
  readyFd?: true;
}

/**
 * Resolves once the sandbox's forwarder wrote its byte to `pipe` (fd 3) or the pipe closed (the
 * sandbox failed to start: its error is in the agent's output and exit status).
 */
export function ready(pipe: NodeJS.ReadableStream | null | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!pipe) return resolve();
    const done = () => {
      pipe.removeListener('data', done);
      pipe.removeListener('close', done);
      resolve();
    };
    pipe.once('data', done);
    pipe.once('close', done);
    pipe.once('error', done);
  });
}

/** The namespace layer of the agent sandbox. */
export class NamespaceSandbox {
  #verdict: NamespacesVerdict | undefined;
  #bridges: HostBridges | undefined;
  readonly #ids: HostIds | undefined;
  readonly #bwrap: string | undefined;
  readonly #prlimit: string | undefined;

  constructor(private readonly options: NamespaceSandboxOptions) {
    this.#ids = agentHostIds(options.rootIds);
    const searchPath = options.searchPath ?? process.env['PATH'] ?? '/usr/bin:/bin';
    this.#bwrap = findExecutable('bwrap', searchPath);
    this.#prlimit = findExecutable('prlimit', searchPath);
  }

  /** True once start() found namespaces usable and the setting asks for them. */
  get active(): boolean {
    return this.#bridges !== undefined;
  }

  /** The probe's verdict (after start; undefined when the setting is off). */
  get verdict(): NamespacesVerdict | undefined {
    return this.#verdict;
  }

  /** Probe (once per process) unless off, and open the sockets the forwarders reach. */
  async start(): Promise<void> {
    if (!this.options.enabled || this.options.namespaces === 'off') return;
    const missing = !this.#bwrap ? 'bwrap not found on the box PATH (install bubblewrap)' : !this.#prlimit ? 'prlimit not found on the box PATH (install util-linux)' : undefined;
    this.#verdict = missing ? { available: false, reason: missing, freshProc: false, uid: this.#ids?.uid ?? process.getuid?.() ?? -1, checkedAt: new Date().toISOString() } : await namespacesVerdict({ bwrap: this.#bwrap!, ...(this.#ids ?? {}) });
    if (!this.#verdict.available) return;
    const bridges = new HostBridges(this.options.forwards);
    await bridges.start();
    this.#bridges = bridges;
  }

  /** Close the sockets. */
  async close(): Promise<void> {
    await this.#bridges?.close();
    this.#bridges = undefined;
  }

  /**
   * The command that starts `command args` for an agent working in `cwd` (a real path in the
   * workspace): inside bubblewrap when active, unchanged otherwise. Refuses (409, the box's state
   * does not allow it) when `required` and namespaces are not usable here, or when the box runs as
   * root and the agent's uid cannot reach the directory.
   */
  async wrap(command: string, args: readonly string[], cwd: string, searchPath = ''): Promise<WrappedSpawn> {
    if (!this.active) {
      if (this.options.enabled && this.options.namespaces === 'required') {
        throw new AdapterConflictError(`sandbox.namespaces = "required" but user namespaces are not usable here: ${this.#verdict?.reason ?? 'the sandbox is not started'}; in the container add [security.exceptions.sandbox-namespaces] (see docs/user/sandbox.md), or set sandbox.namespaces = "auto"`);
      }
      return { command, args: [...args] };
    }
    // bwrap would report a missing command only from inside, as a failed run: say it at spawn, as a plain spawn does.
    if (!(command.includes('/') ? findExecutable(path.basename(command), path.resolve(cwd, path.dirname(command))) : findExecutable(command, searchPath))) {
      throw new AdapterInputError(`cannot start ${JSON.stringify(command)}: ENOENT (not found on the agent PATH)`);
    }
    if (this.#ids) {
      try {
        for (const p of [cwd, ...this.options.forwards.map((f) => f.socket)]) {
          await openPathBelow(this.options.root, p);
          await checkReachable(p, this.#ids);
        }
        await giveDirectory(cwd, this.#ids);
      } catch (err) {
        throw new AdapterConflictError(`cannot sandbox the agent: ${(err as Error).message}`);
      }
    }
    const launcher = this.options.launcher ?? [];
    const limit = String(this.options.processes);
    const inner = [
      ...forwarderArgv(process.execPath, this.options.forwards),
      // After the forwarder started: the limit counts its threads too, and must not keep it from starting.
      this.#prlimit!, `--nproc=${limit}:${limit}`, '--',
      ...(launcher.length ? [...launcher, '--'] : []),
      command,
      ...args,
    ];
    const readOnly = [process.execPath, ...(launcher[0] && path.isAbsolute(launcher[0]) ? [launcher[0]] : [])];
    const [bwrap, ...rest] = bwrapArgv({ bwrap: this.#bwrap!, agentDir: cwd, proc: this.#verdict!.freshProc ? 'fresh' : 'ro-bind', readOnly, sockets: this.options.forwards.map((f) => f.socket), inner });
    return { command: '/bin/sh', args: ['-c', SIGNALS_AS_PLAIN_SPAWN, 'agentbox-sandbox', bwrap!, ...rest], readyFd: true, ...(this.#ids ? { ids: this.#ids } : {}) };
  }
}

/**
 * Runs bwrap so that an agent's end reads as it would without the sandbox. bwrap itself dies of
 * SIGTERM (taking the sandbox with it, no grace for the agent) and reports a command killed by a
 * signal as exit status 128+n. So bwrap runs with SIGTERM ignored (the forwarder inside passes it
 * to the agent, whose disposition is reset when it starts; the spawn waits for the forwarder's
 * handler, see `ready`); a SIGTERM sent to this shell alone (not to the group) is passed to the
 * group; and a status above 128 is turned back into that signal. An agent that exits with such a
 * status itself reads as killed by it.
 */
const SIGNALS_AS_PLAIN_SPAWN = [
  'trap \'trap "" TERM; kill -TERM 0\' TERM',
  '(trap "" TERM; exec "$@") & pid=$!',
  'while :; do wait "$pid"; s=$?; kill -0 "$pid" 2>/dev/null || break; done',
  'trap - TERM',
  'if [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then kill -"$((s - 128))" "$$"; fi',
  'exit "$s"',
].join('\n');

/** The absolute path of `name` on `searchPath`, if it is there and executable. */
export function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter).filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
