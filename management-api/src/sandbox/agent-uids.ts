// A uid and gid of its own for each agent name of a root box: stable across restarts, never shared
// with another name, another box on the machine, the box's programmes or the files they own.
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { takeFileLock } from '../file-lock.js';
import { SerialLock } from '../serial-lock.js';
import type { HostIds } from './agent-ids.js';

/**
 * The first uid handed to agents. High enough to stay clear of the ranges distributions give users
 * (1000–60000), systemd's dynamic users (61184–65519), nobody (65534) and the subordinate ranges
 * of user namespaces (100000 + 65536 per user), below 2^31 so every tool prints it as a number.
 */
export const AGENT_UID_BASE = 0x5000_0000;
/** Ids in one box's block: one per agent name the box ever ran. */
export const AGENT_UID_BLOCK = 65_536;
/** Blocks between AGENT_UID_BASE and 2^31. */
const MAX_BLOCKS = Math.floor((2 ** 31 - AGENT_UID_BASE) / AGENT_UID_BLOCK);
/** Boxes hold the claims' lock for a few file operations each: this long means one is stuck. */
const CLAIMS_LOCK_WAIT_MS = 30_000;

/**
 * Where boxes of this machine claim their blocks: one file per block, named by its number, holding
 * the real path of the box's root. On the host's disk (not /run), so that a box keeps its block,
 * and its files their owners, across reboots.
 */
export const DEFAULT_CLAIMS_DIR = '/var/lib/agent-uid-blocks';

/**
 * What the box remembers (in its state directory, 0600): its block, then one line per name or spare
 * slot (`{"spare": N}`, set aside for warm copies), in the order of their slots, and a name that
 * adopted a spare slot after it (`{"name", "slot": N}` below the highest). Appended to, never
 * rewritten but for a new block: a box that runs many names pays one short append per new name.
 * A line cut short by a crash is left out (that name gets a new slot; its directory is then handed
 * over from the old uid, agent-ids.ts).
 */
interface UidMap {
  block: number;
  names: Map<string, number>;
  /** Slots set aside for copies built ahead (warm forks) and not yet given a name: `{"spare": slot}` lines. */
  spare: Set<number>;
  /** The next free slot: one past the highest recorded. */
  next: number;
}

export interface AgentUidOptions {
  /** The box's root (real path), written in its claim. */
  root: string;
  /** The box's record of names and slots (JSON lines). */
  stateFile: string;
  claimsDir?: string;
}

/** Allocates and remembers agent ids; calls are serialised, so two spawns never take one slot. */
export class AgentUids {
  #map: UidMap | undefined;
  readonly #serial = new SerialLock();
  readonly #claimsDir: string;
  /** Spare slots lent to a copy now (spareIds): never lent twice. */
  readonly #lent = new Set<number>();

  constructor(private readonly options: AgentUidOptions) {
    this.#claimsDir = options.claimsDir ?? DEFAULT_CLAIMS_DIR;
  }

  /** The ids of agent `name`: the ones it had before, or the next free slot of the box's block. */
  idsFor(name: string): Promise<HostIds> {
    return this.#serial.run(() => this.#idsFor(name));
  }

  /**
   * Ids no name has, for a copy of a snapshot built ahead of the fork that will take it (a warm
   * fork): the copy is built owned by them, and the fork of a name that never ran takes them as its
   * own (adopt), so the copy changes hands by a rename, not a chown of every entry. A slot is set
   * aside once (a line of the record) and lent to one copy at a time; a copy removed gives it back
   * (release), and a start finds every such slot free again (the copies did not outlive the run).
   */
  spareIds(): Promise<HostIds> {
    return this.#serial.run(async () => {
      const map = (this.#map ??= await this.#load());
      let slot = [...map.spare].find((s) => !this.#lent.has(s));
      if (slot === undefined) {
        slot = this.#nextSlot(map);
        await appendFile(this.options.stateFile, `${JSON.stringify({ spare: slot })}\n`, { mode: 0o600 });
        map.spare.add(slot);
        map.next = slot + 1;
      }
      this.#lent.add(slot);
      return this.#idsOf(map, slot);
    });
  }

  /** The copy lent `uid` is gone or given to another uid: its slot may be lent again. A slot a name adopted stays that name's. */
  releaseSpare(uid: number): void {
    const map = this.#map;
    if (map) this.#lent.delete(this.#slotOf(map, uid));
  }

  /**
   * Give `name` the spare ids `uid` (lent to the copy its fork takes), when the name has no ids yet;
   * true when it now has them, false when the name ran before (its ids stay: the copy is then
   * chowned to them) or `uid` is not a spare slot lent to a copy.
   */
  adoptSpare(name: string, uid: number): Promise<boolean> {
    return this.#serial.run(async () => {
      const map = (this.#map ??= await this.#load());
      const slot = this.#slotOf(map, uid);
      if (map.names.has(name) || !map.spare.has(slot) || !this.#lent.has(slot)) return false;
      await appendFile(this.options.stateFile, `${JSON.stringify({ name, slot })}\n`, { mode: 0o600 });
      map.names.set(name, slot);
      map.spare.delete(slot);
      this.#lent.delete(slot);
      return true;
    });
  }

  /** True for ids of this box's block: a directory owned by one was left by one of its agents. */
  owns(uid: number): boolean {
    const block = this.#map?.block;
    if (block === undefined) return false;
    const first = AGENT_UID_BASE + block * AGENT_UID_BLOCK;
    return uid >= first && uid < first + AGENT_UID_BLOCK;
  }

  async #idsFor(name: string): Promise<HostIds> {
    const map = (this.#map ??= await this.#load());
    let slot = map.names.get(name);
    if (slot === undefined) {
      slot = this.#nextSlot(map);
      await appendFile(this.options.stateFile, `${JSON.stringify({ name, slot })}\n`, { mode: 0o600 });
      map.names.set(name, slot);
      map.next = slot + 1;
    }
    return this.#idsOf(map, slot);
  }

  #idsOf(map: UidMap, slot: number): HostIds {
    const uid = AGENT_UID_BASE + map.block * AGENT_UID_BLOCK + slot;
    return { uid, gid: uid };
  }

  /** The slot of `uid` in the box's block (outside the block: a number no slot has, negative or past it). */
  #slotOf(map: UidMap, uid: number): number {
    return uid - (AGENT_UID_BASE + map.block * AGENT_UID_BLOCK);
  }

  #nextSlot(map: UidMap): number {
    if (map.next >= AGENT_UID_BLOCK)
      throw new Error(
        `this box has run ${AGENT_UID_BLOCK} agent names, each with a uid of its own, and has none left: reuse names, or start the box with a new root`,
      );
    return map.next;
  }

  /** The record, with the block claimed (again) for this root. */
  async #load(): Promise<UidMap> {
    const text = await readFile(this.options.stateFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw new Error(`${this.options.stateFile} is unreadable (${err.message}): move it away to give this box's agents new uids`);
    });
    const saved = text === undefined ? undefined : parseMap(text, this.options.stateFile);
    // A line cut short: end it, so the next append starts a line of its own.
    if (text && !text.endsWith('\n')) await appendFile(this.options.stateFile, '\n');
    await mkdir(this.#claimsDir, { recursive: true, mode: 0o700 });
    // The claims are read and written under the machine's lock: two boxes starting at once never both take a block.
    const lock = path.join(this.#claimsDir, 'lock.db');
    const release = await takeFileLock(lock, CLAIMS_LOCK_WAIT_MS);
    if (!release) throw new Error(`${lock} has been held by another box for more than ${CLAIMS_LOCK_WAIT_MS / 1000} s: is a box stuck starting?`);
    try {
      if (saved && (await this.#claim(saved.block))) return saved;
      // No record, or another box took the block: a new one, and new slots (the box's directories are given again at each spawn).
      for (let block = 0; block < MAX_BLOCKS; block++) {
        if (await this.#claim(block)) {
          const fresh: UidMap = { block, names: new Map(), spare: new Set(), next: 0 };
          await this.#save(fresh);
          return fresh;
        }
      }
    } finally {
      release();
    }
    throw new Error(`every agent uid block under ${this.#claimsDir} is claimed by a box whose root exists; remove the claims of boxes you no longer run`);
  }

  /**
   * Claim `block` for this root (under the claims' lock): free, already ours, or left by a box whose
   * root is gone. A claim appears whole: written aside, then renamed over the name.
   */
  async #claim(block: number): Promise<boolean> {
    const file = path.join(this.#claimsDir, String(block));
    const holder = await readFile(file, 'utf8').catch(() => undefined);
    if (holder === this.options.root) return true;
    if (holder !== undefined && (await exists(holder))) return false;
    const tmp = `${file}.${unique()}.tmp`;
    await writeFile(tmp, this.options.root, { mode: 0o600 });
    await rename(tmp, file);
    return true;
  }

  /** A record of the block alone (a new block starts with no names). */
  async #save(map: UidMap): Promise<void> {
    await mkdir(path.dirname(this.options.stateFile), { recursive: true });
    const tmp = `${this.options.stateFile}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ block: map.block })}\n`, { mode: 0o600 });
    await rename(tmp, this.options.stateFile);
  }
}

/** The record's lines: the block first, then each name and its slot; a malformed line (cut short) is skipped. */
function parseMap(text: string, file: string): UidMap {
  const [head, ...rest] = text.split('\n');
  let block: unknown;
  try {
    block = (JSON.parse(head ?? '') as { block?: unknown }).block;
  } catch {
    block = undefined;
  }
  if (typeof block !== 'number' || !Number.isInteger(block) || block < 0)
    throw new Error(`${file} is unreadable (its first line names no block): move it away to give this box's agents new uids`);
  const names = new Map<string, number>();
  const spare = new Set<number>();
  let next = 0;
  const isSlot = (slot: unknown): slot is number => typeof slot === 'number' && Number.isInteger(slot) && slot < AGENT_UID_BLOCK;
  for (const line of rest) {
    try {
      const entry = JSON.parse(line) as { name?: unknown; slot?: unknown; spare?: unknown };
      if (isSlot(entry.spare) && entry.spare >= next) {
        spare.add(entry.spare);
        next = entry.spare + 1;
        continue;
      }
      const { name, slot } = entry;
      if (typeof name !== 'string' || !isSlot(slot) || names.has(name)) continue;
      // A new slot, or a spare one a fork of this name adopted (set aside before, hence below next).
      if (spare.delete(slot)) names.set(name, slot);
      else if (slot >= next) {
        names.set(name, slot);
        next = slot + 1;
      }
    } catch {
      // A line cut short by a crash: that name gets a new slot when it runs again.
    }
  }
  return { block, names, spare, next };
}

/** A name no other writer uses at the same time: another process, or another box of this one. */
const unique = () => `${process.pid}-${randomBytes(6).toString('hex')}`;

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
