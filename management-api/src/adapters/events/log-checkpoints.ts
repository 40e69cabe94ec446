// Signed checkpoints of the event log (C2SP tlog-checkpoint): the latest in `checkpoint`, every
// one appended to `checkpoints.jsonl`, the verifier key in `verifier-key`, all beside the tree.
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { formatCheckpoint, parseCheckpoint } from '../../tlog/checkpoint.js';
import { openNote, parseVerifierKey, signNote, type NoteSigner } from '../../tlog/signed-note.js';
import { replaceFileDurably, writeAll } from '../../durable-fs.js';

/** File names under the log's `tlog/` directory. */
export const TLOG_FILES = { tree: 'tree.hashes', checkpoint: 'checkpoint', history: 'checkpoints.jsonl', verifierKey: 'verifier-key' } as const;

/** A signed checkpoint: the note and what it says. */
export interface SignedCheckpoint {
  origin: string;
  size: number;
  /** Root hash, base64. */
  root: string;
  /** The signed note (text/plain), as served and kept. */
  note: string;
  /** When it was signed (ISO-8601). */
  time: string;
}

/** The checkpoint files of one log, and the key that signs them. */
export class LogCheckpoints {
  #latest: SignedCheckpoint | undefined;

  private constructor(
    private readonly dir: string,
    readonly signer: NoteSigner,
    private readonly clock: () => Date,
  ) {}

  /**
   * Open the checkpoint files in `dir` (created if absent) and publish the verifier key there.
   * A latest checkpoint that does not verify with the key is ignored (logged), so the tree
   * behind it is rebuilt rather than trusted.
   */
  static async open(dir: string, signer: NoteSigner, options: { logger?: Logger; clock?: () => Date } = {}): Promise<LogCheckpoints> {
    const keeper = new LogCheckpoints(dir, signer, options.clock ?? (() => new Date()));
    const verifierKeyFile = path.join(dir, TLOG_FILES.verifierKey);
    const published = await readFile(verifierKeyFile, 'utf8').catch(() => '');
    if (published.trim() !== signer.verifierKey) await replaceFileDurably(verifierKeyFile, `${signer.verifierKey}\n`, 0o644);
    const note = await readFile(path.join(dir, TLOG_FILES.checkpoint), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (note !== undefined) {
      try {
        const c = parseCheckpoint(openNote(note, parseVerifierKey(signer.verifierKey)));
        if (c.origin !== signer.name) throw new Error(`its origin ${c.origin} is not this log's ${signer.name}`);
        keeper.#latest = { origin: c.origin, size: c.size, root: c.root.toString('base64'), note, time: '' };
      } catch (err) {
        options.logger?.warn(
          { event: 'EventLogCheckpointIgnored', reason: (err as Error).message },
          'the latest checkpoint on disk does not verify with the log key; ignoring it',
        );
      }
    }
    return keeper;
  }

  /** The log's origin line (the key's name). */
  get origin(): string {
    return this.signer.name;
  }

  /** The latest signed checkpoint, if any. */
  get latest(): SignedCheckpoint | undefined {
    return this.#latest;
  }

  /** Sign a checkpoint for `size` entries with `root`; keep it as the latest and append it to the history. */
  async sign(size: number, root: Buffer): Promise<SignedCheckpoint> {
    const note = signNote(formatCheckpoint({ origin: this.origin, size, root }), this.signer);
    const signed: SignedCheckpoint = { origin: this.origin, size, root: root.toString('base64'), note, time: this.clock().toISOString() };
    const history = await open(path.join(this.dir, TLOG_FILES.history), 'a', 0o644);
    try {
      await writeAll(history, Buffer.from(`${JSON.stringify({ time: signed.time, size, root: signed.root, note })}\n`));
      await history.datasync();
    } finally {
      await history.close();
    }
    await replaceFileDurably(path.join(this.dir, TLOG_FILES.checkpoint), note, 0o644);
    this.#latest = signed;
    return signed;
  }
}
