// Who agents run as on the host: unchanged for an unprivileged box, an unprivileged uid/gid when the box runs as root.
import { execFile } from 'node:child_process';
import { chmod, chown, stat } from 'node:fs/promises';
import path from 'node:path';

/** A host uid and gid. */
export interface HostIds {
  uid: number;
  gid: number;
}

/** nobody / nogroup on Debian and most distributions. */
export const UNPRIVILEGED_IDS: HostIds = { uid: 65534, gid: 65534 };

/**
 * The ids to spawn agents with: undefined (keep the box's own) unless the box runs as root, then
 * `ids`. A user namespace maps ids inside only: uid 0 inside is still host root for every bound
 * file, so the drop happens on the host, before bubblewrap starts (child_process uid/gid, which
 * also clears supplementary groups).
 */
export function agentHostIds(ids: HostIds = UNPRIVILEGED_IDS, uid: number = process.getuid?.() ?? -1): HostIds | undefined {
  return uid === 0 ? ids : undefined;
}

/**
 * Refuse a path `ids` could not reach: every directory above it must be searchable by them
 * (owner, group or other execute bit, judged by ownership). bubblewrap opens what it binds as
 * the agent's uid, so an unreachable directory would otherwise fail inside the spawn with a
 * message about bwrap, not about the directory to fix. Directories in `searchable` are taken as
 * found before (the box's own, checked once per box); those every uid may search are added to it.
 */
export async function checkReachable(target: string, ids: HostIds, searchable?: Set<string>): Promise<void> {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  let dir: string = path.sep;
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    if (searchable?.has(dir)) continue;
    const st = await stat(dir);
    const bit = st.uid === ids.uid ? 0o100 : st.gid === ids.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0)
      throw new Error(
        `${dir} is not searchable by uid ${ids.uid}, which agents run as when the box runs as root: allow it (chmod o+x ${dir}) or move the box's root`,
      );
    // Searchable through its owner or group bit for this agent only; through "other", for every agent.
    if (bit === 0o001) searchable?.add(dir);
  }
}

/**
 * Let every user search (not list) the directories from the box's `root` down to `target`'s
 * parent, so an unprivileged agent can reach its directory and the sandbox sockets. Only
 * directories the box owns are touched; what is above its root is checkReachable's to judge.
 * Directories in `searchable` (found reachable by checkReachable before) are skipped.
 */
export async function openPathBelow(root: string, target: string, searchable?: ReadonlySet<string>): Promise<void> {
  const relative = path.relative(root, path.dirname(target));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return;
  let dir = root;
  for (const part of ['', ...relative.split(path.sep).filter(Boolean)]) {
    dir = path.join(dir, part);
    if (searchable?.has(dir)) continue;
    const st = await stat(dir);
    if ((st.mode & 0o001) === 0) await chmod(dir, (st.mode & 0o7777) | 0o001);
  }
}

/** How a root box gives an agent its own directories. */
export interface GiveOptions {
  /** Close the directory to everyone else (agents of their own uid: no other agent may list or watch it). */
  private?: boolean;
  /**
   * True for a uid of another agent of this box: a directory it owns (left by an agent of another
   * name) is handed over with what that agent made in it, so the new agent can carry on the work.
   */
  handOverFrom?: (uid: number) => boolean;
}

/**
 * Give the agent's working directory to `ids` (the directory itself, not what others put in it), so
 * the unprivileged agent can create files in it.
 */
export async function giveDirectory(dir: string, ids: HostIds, options: GiveOptions = {}): Promise<void> {
  const st = await stat(dir);
  if (st.uid !== ids.uid && options.handOverFrom?.(st.uid)) await handOver(dir, st, ids);
  else if (st.uid !== ids.uid || st.gid !== ids.gid) await chown(dir, ids.uid, ids.gid);
  if (options.private && (st.mode & 0o077) !== 0) await chmod(dir, st.mode & 0o7700);
}

/**
 * Every file of `dir` owned by its current owner, given to `ids`: GNU chown walks without following
 * symbolic links and changes each entry relative to its directory, so a link planted in the tree
 * cannot point the change elsewhere. The previous owner's processes have all ended: it is another
 * name's uid, and its agent runs elsewhere (each agent writes only its own directory).
 */
async function handOver(dir: string, from: { uid: number; gid: number }, ids: HostIds): Promise<void> {
  const { status, stderr } = await run('chown', ['-R', '--no-dereference', `--from=${from.uid}:${from.gid}`, `${ids.uid}:${ids.gid}`, '--', dir]);
  if (status !== 0) throw new Error(`handing ${dir} over to uid ${ids.uid} failed: ${stderr.trim() || `chown exited ${status}`}`);
}

function run(command: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, (err, _stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr: String(stderr) }));
  });
}

/** Who runs an agent: the same ids for every agent, or ids of its own per agent name. */
export type AgentIdsSource = HostIds | { idsFor(name: string): Promise<HostIds>; owns(uid: number): boolean };

/**
 * What a root box does so that agents running as unprivileged ids reach what they are given: the
 * box's directories down to each path made searchable, every directory above it checked
 * searchable, and the agent's own directories given to it. A directory found searchable through
 * its "other" bit is so for every agent and is not checked again; an agent's own directories are
 * given at each spawn (each check costs dozens of stat calls).
 */
export class AgentPathAccess {
  /** Shared paths found reachable by every agent. */
  readonly #reachable = new Set<string>();
  /** Directories found searchable by everyone (or made so, below the box's root). */
  readonly #searchable = new Set<string>();

  constructor(
    private readonly root: string,
    readonly source: AgentIdsSource,
  ) {}

  /** The ids agent `name` runs as. */
  async idsFor(name: string): Promise<HostIds> {
    return 'idsFor' in this.source ? this.source.idsFor(name) : this.source;
  }

  /** Make `shared` and `own` reachable by `ids`, and give it `own`; throws naming the directory to open. */
  async prepare(shared: readonly string[], own: readonly string[], ids: HostIds): Promise<void> {
    const perAgent = 'owns' in this.source ? this.source : undefined;
    await Promise.all(
      [...shared, ...own].map(async (p) => {
        if (this.#reachable.has(p)) return;
        await openPathBelow(this.root, p, this.#searchable);
        await checkReachable(p, ids, this.#searchable);
      }),
    );
    for (const p of shared) this.#reachable.add(p);
    const give: GiveOptions = perAgent ? { private: true, handOverFrom: (uid) => perAgent.owns(uid) } : {};
    await Promise.all(own.map((dir) => giveDirectory(dir, ids, give)));
  }

  /** Forget what was found (the box's directories may have changed). */
  clear(): void {
    this.#reachable.clear();
    this.#searchable.clear();
  }
}
