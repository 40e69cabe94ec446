// Knows whether the bootstrap seal file exists, without a stat per request: fs.watch plus a slow re-check.
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** Options of {@link SealWatcher}. */
export interface SealWatcherOptions {
  /** The seal file, `<run>/bootstrap.done`. */
  file: string;
  /**
   * Written (JSON `{reason}`) when stage B fails or the seal times out, in the same directory;
   * its reason is kept so /ready can say why the seal is not there.
   */
  failureFile?: string;
  /** Safety-net re-check interval (a missed inotify event, a replaced directory). */
  recheckMs: number;
  onChange: (present: boolean) => void;
}

/**
 * Watches the seal file's directory. The directory may not exist yet (it is created by the
 * entrypoint); then only the re-check runs, and each re-check tries to watch again. A watch is
 * also re-established when the directory is replaced (its inode changes).
 */
export class SealWatcher {
  #present = false;
  #failure: string | undefined;
  #watcher: FSWatcher | undefined;
  #watchedIno: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  #again = false;
  #closed = false;
  readonly #dir: string;
  readonly #name: string;

  constructor(private readonly options: SealWatcherOptions) {
    this.#dir = path.dirname(options.file);
    this.#name = path.basename(options.file);
  }

  /** Whether the seal file was present at the last check. */
  get present(): boolean {
    return this.#present;
  }

  /** Why boot failed, when the failure file was present at the last check. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Check once, start watching and start the re-check timer. */
  async start(): Promise<void> {
    await this.#recheck();
    this.#timer = setInterval(() => void this.#recheck(), this.options.recheckMs);
    this.#timer.unref();
  }

  /** Stop watching. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#unwatch();
  }

  async #recheck(): Promise<void> {
    await this.#ensureWatch();
    await this.#check();
  }

  async #ensureWatch(): Promise<void> {
    if (this.#closed) return;
    const dirIno = await stat(this.#dir).then(
      (s) => s.ino,
      () => undefined,
    );
    if (dirIno === undefined) return this.#unwatch();
    if (this.#watcher && dirIno === this.#watchedIno) return;
    this.#unwatch();
    try {
      const watcher = watch(this.#dir, { persistent: false }, (_event, filename) => {
        // Linux names the file; some platforms do not, and then any event is worth a check.
        if (!filename || filename === this.#name || (this.options.failureFile && filename === path.basename(this.options.failureFile))) void this.#check();
      });
      watcher.on('error', () => this.#unwatch());
      this.#watcher = watcher;
      this.#watchedIno = dirIno;
    } catch {
      // The directory vanished in between: the next re-check tries again.
    }
  }

  #unwatch(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#watchedIno = undefined;
  }

  async #readFailure(): Promise<string | undefined> {
    if (!this.options.failureFile) return undefined;
    const text = await readFile(this.options.failureFile, 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    try {
      return String((JSON.parse(text) as { reason?: unknown }).reason ?? 'unknown');
    } catch {
      return text.trim() || 'unknown';
    }
  }

  /** Stat the seal; coalesces bursts of events into at most one stat in flight plus one queued. */
  async #check(): Promise<void> {
    if (this.#checking) {
      this.#again = true;
      return;
    }
    this.#checking = true;
    try {
      do {
        this.#again = false;
        const present = await stat(this.options.file).then(
          (s) => s.isFile(),
          () => false,
        );
        const failure = await this.#readFailure();
        if (!this.#closed && (present !== this.#present || failure !== this.#failure)) {
          this.#present = present;
          this.#failure = failure;
          this.options.onChange(present);
        }
      } while (this.#again && !this.#closed);
    } finally {
      this.#checking = false;
    }
  }
}
