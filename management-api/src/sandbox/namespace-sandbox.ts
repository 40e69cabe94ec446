// The namespace layer of the agent sandbox: whether bubblewrap is used, and the bwrap command around the launcher.
import { accessSync, constants, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../errors.js';
import { agentHostIds, AgentPathAccess, type HostIds } from './agent-ids.js';
import { boundPaths, bwrapArgv, type ProcMode } from './bwrap-argv.js';
import { HostBridges, type BridgeSpec } from './host-bridge.js';
import { namespacesVerdict, type NamespacesVerdict } from './namespaces-probe.js';
import type { ForwardedPort, SandboxPolicy } from './sandbox-policy.js';

/** `sandbox.namespaces` of the manifest. */
export type NamespacesSetting = 'auto' | 'required' | 'off';

/** The descriptor the launcher inside bubblewrap writes its ready byte to (the spawn's fourth stdio entry). */
export const READY_FD = 3;
/**
 * The descriptor the launcher's --wrap gives bubblewrap for the agent's wait status, which the
 * launcher inside writes (WRAP_STATUS_FD in agentbox-sandbox.h: keep the two equal).
 */
export const STATUS_FD = 4;

/** What the namespace layer is configured by. */
export interface NamespaceSandboxOptions {
  /** `sandbox.namespaces`; pass `off` when the sandbox is disabled. */
  namespaces: NamespacesSetting;
  /** The box's unix sockets and the loopback ports they lead to (read at each connection and spawn: the API's port is known once it listens). */
  bridges: readonly BridgeSpec[];
  /** The box's root directory (runtime paths' `root`): below it, directories are made searchable for an unprivileged agent. */
  root: string;
  /** Ids the namespace probe runs as when the box runs as root (default nobody/nogroup). */
  rootIds?: HostIds;
  /** When the box runs as root: who each agent runs as and what it is given (the sandbox's, shared with the launcher-alone path). */
  access?: AgentPathAccess;
  /** The bwrap executable (default: found on the API's PATH). */
  bwrap?: string;
  /** How /proc is given, instead of the probe's verdict: how tests run the container's fallback on a host. */
  proc?: ProcMode;
  /**
   * Transparent egress: the ports the forwarder passes to the egress proxy by name (the manifest's
   * allow_ports), and the proxy's socket (one of the bridges). Absent or empty: none.
   */
  transparent?: { ports: () => readonly number[]; via: string };
}

/**
 * The sandbox's resolv.conf under transparent egress: the forwarder's DNS on loopback, over TCP
 * (`use-vc`: the seccomp filter refuses the agent UDP sockets), one try.
 */
export const SANDBOX_RESOLV_CONF = 'nameserver 127.0.0.1\noptions use-vc attempts:1\n';

/**
 * Capabilities bubblewrap leaves the launcher under transparent egress: binding port 53 and the
 * allowed ports below 1024, and CAP_SETPCAP, without which the launcher could not drop them
 * again from its bounding set (it drops every capability before the agent runs, and the
 * forwarder once it listens).
 */
export const TRANSPARENT_CAPS = ['CAP_NET_BIND_SERVICE', 'CAP_SETPCAP'] as const;

/** What /health and /v1/meta say about the namespace layer. */
export interface NamespacesStatus {
  setting: NamespacesSetting;
  /** Agents run in bubblewrap (absent before the probe, and when off). */
  active?: boolean;
  reason?: string;
  proc?: ProcMode;
  /** bwrap's `--disable-userns` is used (false under Docker's read-only /proc/sys). */
  disableUserns?: boolean;
  checkedAt?: string;
}

/** A spawn that runs the launcher inside bubblewrap. */
export interface NamespacedSpawn {
  command: string;
  args: string[];
  /** Host ids to drop to before exec (only when the box runs as root). */
  ids?: HostIds;
  /** The spawn gets a pipe as fd READY_FD and counts as done once the launcher wrote to it. */
  readyFd: true;
}

/**
 * Resolves once the launcher wrote its byte to `pipe` (fd READY_FD) or the pipe closed (the
 * sandbox failed to start: its error is in the agent's output and exit status), with what came
 * after the byte in the same read: on a loaded machine a launcher's report (keeper-reports.ts) may
 * already be there, and is the caller's to read, not lost.
 */
export function launcherReady(pipe: NodeJS.ReadableStream | null | undefined): Promise<string> {
  return new Promise((resolve) => {
    if (!pipe) return resolve('');
    const done = (data?: Buffer | string) => {
      pipe.removeListener('data', onData);
      pipe.removeListener('close', onEnd);
      pipe.removeListener('error', onEnd);
      resolve(data === undefined ? '' : String(data).slice(1));
    };
    const onData = (data: Buffer | string) => done(data);
    const onEnd = () => done();
    pipe.once('data', onData);
    pipe.once('close', onEnd);
    pipe.once('error', onEnd);
  });
}

/** Per-agent bubblewrap where user namespaces work and the setting allows it. */
export class NamespaceSandbox {
  #verdict: NamespacesVerdict | undefined;
  #bridges: HostBridges | undefined;
  readonly #ids: HostIds | undefined;
  readonly #bwrap: string | undefined;
  /** What the agents' uid is given, made reachable (when the box runs as root). */
  readonly #access: AgentPathAccess | undefined;

  constructor(private readonly options: NamespaceSandboxOptions) {
    this.#ids = agentHostIds(options.rootIds);
    this.#access = options.access ?? (this.#ids ? new AgentPathAccess(options.root, this.#ids) : undefined);
    this.#bwrap = options.bwrap ?? findExecutable('bwrap', process.env['PATH'] ?? '/usr/bin:/bin');
  }

  /** True once start() found namespaces usable and the setting asks for them. */
  get active(): boolean {
    return this.#bridges !== undefined;
  }

  /** Probe (once per process and uid) unless off, and open the sockets the forwarders reach. */
  async start(): Promise<void> {
    if (this.options.namespaces === 'off' || this.#bridges) return;
    const uid = this.#ids?.uid ?? process.getuid?.() ?? -1;
    this.#verdict = this.#bwrap
      ? await namespacesVerdict({ bwrap: this.#bwrap, ...(this.#ids ?? {}) })
      : {
          available: false,
          reason: 'bwrap not found on the box PATH (install bubblewrap)',
          freshProc: false,
          disableUserns: false,
          uid,
          checkedAt: new Date().toISOString(),
        };
    if (!this.#verdict.available) return;
    const bridges = new HostBridges(this.options.bridges);
    await bridges.start();
    if (this.options.transparent) await writeFile(this.#resolvConf(), SANDBOX_RESOLV_CONF, { mode: 0o644 });
    this.#bridges = bridges;
  }

  /** The sandbox's resolv.conf on the host: beside the proxy's socket, in a directory bound into every sandbox. */
  #resolvConf(): string {
    return path.join(path.dirname(this.options.transparent!.via), 'resolv.conf');
  }

  /** The transparent egress of a spawn now, or undefined (off, or no port to listen on). */
  transparent(): { ports: number[]; via: string } | undefined {
    const t = this.options.transparent;
    const ports = t ? [...new Set(t.ports())].filter((p) => p > 0 && p <= 65535).slice(0, 8) : [];
    return t && ports.length > 0 && this.active ? { ports, via: t.via } : undefined;
  }

  /** Close the sockets; start() opens them again. */
  async close(): Promise<void> {
    this.#access?.clear();
    await this.#bridges?.close();
    this.#bridges = undefined;
  }

  /** The setting and the probe's verdict. */
  status(): NamespacesStatus {
    const v = this.#verdict;
    if (this.options.namespaces === 'off' || !v) return { setting: this.options.namespaces };
    return {
      setting: this.options.namespaces,
      active: this.active,
      ...(v.reason ? { reason: v.reason } : {}),
      ...(this.active ? { proc: this.#proc(), disableUserns: v.disableUserns } : {}),
      checkedAt: v.checkedAt,
    };
  }

  /** Refuse (409) when `required` and bubblewrap cannot be used here: before anything is given to the agent. */
  checkUsable(): void {
    if (this.active || this.options.namespaces !== 'required') return;
    throw new ApiError(
      'ABX_ERR_CONFLICT',
      `sandbox.namespaces = "required" but user namespaces are not usable here: ${this.#verdict?.reason ?? 'the sandbox is not started'}; in the container add [security.exceptions.sandbox-namespaces] (see docs/user/sandbox.md), or set sandbox.namespaces = "auto"`,
    );
  }

  /** The forwards of a spawn now: each bridge whose port is known. */
  forwards(): ForwardedPort[] {
    return this.options.bridges
      .map((b) => ({ port: typeof b.port === 'function' ? b.port() : b.port, socket: b.socket }))
      .filter((f): f is ForwardedPort => f.port !== undefined && f.port > 0);
  }

  /**
   * The spawn of `inner` (the launcher's argv for `policy`, then the agent) inside bubblewrap, in
   * `cwd`. When the box runs as root the agent runs as an unprivileged uid: the box's directories
   * down to what is bound are made searchable, the agent's read-write directories are given to it,
   * and a bound path it could not reach refuses the spawn (409) naming the directory to open.
   */
  async wrap(
    inner: readonly string[],
    policy: Pick<SandboxPolicy, 'readOnly' | 'readWrite' | 'forwards'>,
    cwd: string,
    agentIds?: HostIds,
  ): Promise<NamespacedSpawn> {
    // The sockets' directories are bound, not the sockets: one made again after the spawn (a
    // restarted egress proxy) is the one the agent's forwarder reaches.
    const plan = { readOnly: policy.readOnly, readWrite: policy.readWrite, sockets: [...new Set((policy.forwards ?? []).map((f) => path.dirname(f.socket)))] };
    const ids = this.#access ? (agentIds ?? this.#ids) : undefined;
    if (this.#access && ids) {
      try {
        await this.#access.prepare(boundPaths({ readOnly: plan.readOnly, readWrite: [], sockets: plan.sockets }), plan.readWrite, ids);
      } catch (err) {
        throw new ApiError('ABX_ERR_CONFLICT', `cannot sandbox the agent: ${(err as Error).message}`);
      }
    }
    // Transparent egress binds low ports in the agent's network namespace, which only the user
    // namespace owning it grants: bwrap's --disable-userns would put the launcher in a nested one,
    // so it is left out then, and the seccomp filter alone refuses new namespaces (as in Docker).
    const transparent = this.transparent() !== undefined;
    const files = transparent ? [{ source: this.#resolvConf(), dest: resolvConfTarget() }] : [];
    const argv = bwrapArgv({
      bwrap: this.#bwrap!,
      ...plan,
      cwd,
      proc: this.#proc(),
      disableUserns: !transparent && (this.#verdict?.disableUserns ?? true),
      files,
      capAdd: transparent ? TRANSPARENT_CAPS : [],
      inner,
    });
    // The launcher's --wrap runs bwrap so that the agent's end reads as for a plain spawn (agentbox-wrap.c).
    return { command: inner[0]!, args: ['--wrap', '--', ...argv], readyFd: true, ...(ids ? { ids } : {}) };
  }

  #proc(): ProcMode {
    return this.options.proc ?? (this.#verdict?.freshProc ? 'fresh' : 'ro-bind');
  }
}

/**
 * Where the sandbox's resolv.conf is bound: /etc/resolv.conf, or where it leads when it is a
 * link (systemd-resolved's stub file under /run, which bwrap then creates in the sandbox's root).
 */
export function resolvConfTarget(file = '/etc/resolv.conf'): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

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
