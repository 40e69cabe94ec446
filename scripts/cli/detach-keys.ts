// The key sequence that detaches a local terminal from an agent's (Ctrl-P Ctrl-Q, as docker's), found in the keystrokes on their way out.

/** Ctrl-P: the first key of the sequence. */
const CTRL_P = 0x10;
/** Ctrl-Q: the second. */
const CTRL_Q = 0x11;

/** How the sequence reads in --help and the docs. */
export const DETACH_KEYS = 'Ctrl-P Ctrl-Q';

/**
 * Feeds keystrokes through, holding back a Ctrl-P until the next key shows whether it starts the
 * sequence: Ctrl-Q detaches (neither key reaches the agent), anything else sends the Ctrl-P on.
 * A Ctrl-P meant for the agent is typed as Ctrl-P then any other key, as under docker.
 */
export class DetachKeys {
  #pending = false;

  /** The bytes to send for `input`, and whether the sequence was typed (bytes after it are dropped). */
  feed(input: Uint8Array): { send: Buffer; detach: boolean } {
    const out: number[] = [];
    for (const byte of input) {
      if (this.#pending) {
        this.#pending = false;
        if (byte === CTRL_Q) return { send: Buffer.from(out), detach: true };
        out.push(CTRL_P);
        if (byte === CTRL_P) {
          this.#pending = true;
          continue;
        }
        out.push(byte);
        continue;
      }
      if (byte === CTRL_P) this.#pending = true;
      else out.push(byte);
    }
    return { send: Buffer.from(out), detach: false };
  }
}
