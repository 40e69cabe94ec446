// Progress of a long copy on stderr: bytes and rate, shown only on a terminal and only once a transfer is past a few MB.
import { Transform } from 'node:stream';

/** Below this a copy is quick enough to need no progress line. */
const SHOW_FROM = 4 * 1024 * 1024;
const EVERY_MS = 250;

/** A pass-through that counts bytes and, on a TTY stderr, redraws one line; `done()` clears it. */
export function progress(label: string, total?: number): { meter: Transform; bytes: () => number; done: () => void } {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let bytes = 0;
  let last = 0;
  let shown = false;
  const draw = () => {
    const secs = Math.max((Date.now() - started) / 1000, 0.001);
    const of = total ? ` of ${mb(total)}` : '';
    process.stderr.write(`\r${label}: ${mb(bytes)}${of}  ${mb(bytes / secs)}/s\u001b[K`);
    shown = true;
  };
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      const now = Date.now();
      if (tty && bytes >= SHOW_FROM && now - last >= EVERY_MS) {
        last = now;
        draw();
      }
      cb(null, chunk);
    },
  });
  return {
    meter,
    bytes: () => bytes,
    done: () => {
      if (shown) process.stderr.write('\r\u001b[K');
    },
  };
}

function mb(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
