// The bytes the files API wrote into each agent's directories that its last disk walk may not have seen: writes are judged against its budget with them.
/**
 * Why: an agent's disk figure comes from a walk every 5 s (sandbox/limits/disk-sampler.ts), so a
 * budget judged on that figure alone let writes through the API pass it many times over between
 * two walks: six 15 MB PUTs in a row, or ten at once, each saw the same "what is left". Every
 * write is charged here as its bytes arrive (a PUT chunk by chunk, a tar upload file by file), and
 * what is left for the next is the budget less the walk's figure less every charge the walk may
 * have missed: those still being written, and those finished after the walk began. Charges end
 * once a walk that began after them has reported. Bytes are counted as data rounded up to 4 KiB a
 * file, close to the blocks a walk counts (a tar's directories and links are not charged).
 */

/** One write's charge: `take` before writing bytes (false: no room, write nothing), `end` once the write is kept or dropped. */
export interface WriteCharge {
  take(bytes: number): boolean;
  end(kept: boolean): void;
}

interface AgentCharges {
  /** Bytes of writes still going. */
  inFlight: number;
  /** Writes finished, with when (ms since the epoch). */
  done: Array<{ atMs: number; bytes: number }>;
}

/** Finished writes kept per agent before the oldest are merged into one (which then counts as long as the newest of them). */
const MAX_DONE = 256;
const BLOCK = 4096;

export class WriteLedger {
  readonly #agents = new Map<string, AgentCharges>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Bytes charged to `agent` that a walk begun at `measuredAtMs` may not have counted (every
   * charge when no walk has measured it yet). Charges older than the walk are dropped.
   */
  unseen(agent: string, measuredAtMs: number | undefined): number {
    const charges = this.#agents.get(agent);
    if (!charges) return 0;
    if (measuredAtMs !== undefined) charges.done = charges.done.filter((d) => d.atMs >= measuredAtMs);
    if (charges.inFlight === 0 && charges.done.length === 0) {
      this.#agents.delete(agent);
      return 0;
    }
    return charges.done.reduce((sum, d) => sum + d.bytes, charges.inFlight);
  }

  /**
   * A write to `agent`'s directories. `room` is what its budget leaves after its last walk (undefined:
   * no budget, every take succeeds, and nothing is kept), `measuredAtMs` when that walk began.
   */
  begin(agent: string, room: number | undefined, measuredAtMs: number | undefined): WriteCharge {
    if (room === undefined) return { take: () => true, end: () => undefined };
    let mine = 0;
    let ended = false;
    return {
      take: (bytes) => {
        if (this.unseen(agent, measuredAtMs) + bytes > room) return false;
        this.#charges(agent).inFlight += bytes;
        mine += bytes;
        return true;
      },
      end: (kept) => {
        if (ended) return;
        ended = true;
        const charges = this.#charges(agent);
        charges.inFlight -= mine;
        if (kept && mine > 0) this.#finish(charges, Math.ceil(mine / BLOCK) * BLOCK);
      },
    };
  }

  #charges(agent: string): AgentCharges {
    let charges = this.#agents.get(agent);
    if (!charges) this.#agents.set(agent, (charges = { inFlight: 0, done: [] }));
    return charges;
  }

  #finish(charges: AgentCharges, bytes: number): void {
    charges.done.push({ atMs: this.now(), bytes });
    if (charges.done.length <= MAX_DONE) return;
    // Merged, the oldest half counts until a walk begun after the newest of them: never less than before.
    const old = charges.done.splice(0, MAX_DONE / 2);
    charges.done.unshift({ atMs: old.at(-1)!.atMs, bytes: old.reduce((sum, d) => sum + d.bytes, 0) });
  }
}

/**
 * `charge` with `bytes` taken at once (a PUT's Content-Length), or undefined when they do not fit:
 * writes going at once would otherwise each take part of what is left, chunk by chunk, until none
 * could finish. The answer's takes come out of what was paid first.
 */
export function prepaid(charge: WriteCharge, bytes: number): WriteCharge | undefined {
  if (!charge.take(bytes)) return undefined;
  let credit = bytes;
  return {
    take: (n) => {
      const covered = Math.min(credit, n);
      credit -= covered;
      return covered === n || charge.take(n - covered);
    },
    end: (kept) => charge.end(kept),
  };
}
