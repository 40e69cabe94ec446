// A line on stderr while a command waits on one slow request (a snapshot, a restore, a fork's build): what it waits for and for how long, on a terminal only.

/** Nothing is shown for a request answered within this: most are. */
const SHOW_AFTER_MS = 1_000;
const EVERY_MS = 1_000;

/** Where the line goes: stderr, or a test's stand-in. */
export interface WaitOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * `work`'s result; meanwhile, on a terminal, `label… Ns` redrawn each second once it has taken a
 * second, and cleared when it settles. Not on a pipe or a file: a script reads the answer only.
 */
export async function whileWaiting<T>(label: string, work: Promise<T>, out: WaitOutput = process.stderr): Promise<T> {
  if (out.isTTY !== true) return work;
  const started = Date.now();
  let shown = false;
  const draw = () => {
    shown = true;
    out.write(`\r${label}… ${Math.round((Date.now() - started) / 1000)} s\u001b[K`);
  };
  let timer: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    draw();
    timer = setInterval(draw, EVERY_MS);
  }, SHOW_AFTER_MS);
  try {
    return await work;
  } finally {
    clearTimeout(first);
    clearInterval(timer);
    if (shown) out.write('\r\u001b[K');
  }
}
