// A snapshot's clone: on btrfs, a read-only snapshot of the working directory kept in the store, which a fork or restore of it becomes in one step, sharing every byte until written.
import { open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { DIR_FLAGS } from '../workspace-files/dir-fd.js';
import { storeLayout } from './object-store.js';
import type { Owner } from './snapshot-protocol.js';
import { installedSubvolumes, isSubvolume, type Subvolumes } from '../sandbox/subvolumes.js';

/**
 * Why clones: a build copies every byte of a snapshot (1 GiB: seconds; ten at once: a minute on
 * this machine's disk), and no filesystem shares bytes between files it copies except by reflink
 * or snapshot. btrfs lets the owner of a subvolume snapshot it without privilege, in constant time
 * whatever it holds. So an agent's own directory is made a subvolume on btrfs (sandbox/subvolumes.ts,
 * makeAgentDirectory), and a capture first takes a read-only snapshot of it (`clones/<id>`: a
 * read-only subvolume cannot be renamed, so it is made where it stays), then walks the directory
 * as on any filesystem. The clone is kept when the walk shows it holds exactly what was read
 * (CaptureResult.cloneFit: entries changed around its taking are compared with it,
 * clone-check.ts), so a fork or restore of it is the tree a build of the entries would make. A
 * failed capture and a delete remove theirs; one a kill left without a summary goes at the
 * store's next open. Anything else (another filesystem, a directory that is not a subvolume, a
 * clone that failed) goes the copying way.
 */
export class SnapshotClones {
  readonly #subvolumes: Subvolumes | undefined;

  constructor(
    private readonly storeDir: string,
    private readonly logger: Logger | undefined,
    subvolumes?: Subvolumes,
  ) {
    this.#subvolumes = subvolumes;
  }

  get #ops(): Subvolumes {
    return this.#subvolumes ?? installedSubvolumes();
  }

  #kept = (id: string) => path.join(storeLayout(this.storeDir).clones, id);

  /**
   * A read-only clone of the directory open as `rootFd`, when it is a subvolume and the store is
   * on the same btrfs filesystem: the clone open, and when it was taken (just before). Undefined
   * otherwise.
   */
  async take(rootFd: number, id: string): Promise<{ fd: number; close(): Promise<void>; takenAtMs: number } | undefined> {
    const source = `/proc/self/fd/${rootFd}`;
    if (!(await isSubvolume(source))) return undefined;
    const dir = this.#kept(id);
    const takenAtMs = Date.now();
    try {
      await this.#ops.snapshot({ fd: rootFd }, dir, { readonly: true });
    } catch (err) {
      this.logger?.info(
        { event: 'SnapshotCloneSkipped', err: (err as Error).message },
        'the working directory could not be cloned; the snapshot walks it as it changes',
      );
      return undefined;
    }
    const handle = await open(dir, DIR_FLAGS).catch(async (err: unknown) => {
      await this.discard(id);
      throw err;
    });
    return { fd: handle.fd, close: () => handle.close(), takenAtMs };
  }

  /** Remove snapshot `id`'s clone, if it has one. */
  discard(id: string): Promise<void> {
    return this.remove(this.#kept(id));
  }

  /** Remove one clone (or any tree): a subvolume by the launcher, anything else as a tree. */
  async remove(dir: string): Promise<void> {
    try {
      if (await isSubvolume(dir)) return await this.#ops.remove(dir);
    } catch (err) {
      // Removed meanwhile by the sweep: gone is what was asked.
      if (await isSubvolume(dir)) throw err;
    }
    await rm(dir, { recursive: true, force: true });
  }

  /**
   * Make `target` (a new name) a writable snapshot of snapshot `id`'s clone, when it has one:
   * 'built' when its entries are `owner`'s (the box's own ids when undefined) already, 'regive' when
   * the caller must give them to `owner` (root, which may), undefined when the caller must build it
   * by copying.
   */
  async build(id: string, target: string, owner: Owner | undefined): Promise<'built' | 'regive' | undefined> {
    const clone = this.#kept(id);
    const root = await stat(clone).catch(() => undefined);
    if (!root) return undefined;
    const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const want = owner ?? self;
    const same = root.uid === want.uid && root.gid === want.gid;
    if (!same && self.uid !== 0) return undefined;
    try {
      await this.#ops.snapshot(clone, target, { readonly: false });
      return same ? 'built' : 'regive';
    } catch (err) {
      // Most often EXDEV: the workspace is on another filesystem than the store.
      this.logger?.info({ event: 'SnapshotCloneUnused', snapshot: id, err: (err as Error).message }, 'the snapshot is built by copying');
      return undefined;
    }
  }

  /** Remove the clones of snapshots that do not exist (a kill before the summary was written); the caller holds the store's lock. */
  async sweep(live: ReadonlySet<string>): Promise<void> {
    const dir = storeLayout(this.storeDir).clones;
    for (const name of await readdir(dir).catch(() => [] as string[])) if (!live.has(name)) await this.remove(path.join(dir, name));
  }
}

/** Remove every clone under the store at `storeDir` (read-only subvolumes, which a plain recursive remove cannot): before removing a store's directory. */
export async function removeClones(storeDir: string, subvolumes?: Subvolumes): Promise<void> {
  await new SnapshotClones(storeDir, undefined, subvolumes).sweep(new Set());
}
