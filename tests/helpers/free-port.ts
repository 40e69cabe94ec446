// Free TCP ports on 127.0.0.1 for test servers and boxes, reserved across every test process on the machine.
//
// Why not listen(0) and close: the suite runs files in parallel, and a port taken that way is in the kernel's
// ephemeral range, which every outgoing connection of every process draws its local port from — between
// "was free" and the server's listen(), another file's HTTP client may hold it (EADDRINUSE). So ports come
// from below that range (the kernel never hands those out on its own), and each is claimed with a lock
// file created exclusively, so two test processes cannot pick the same one; a claim whose process is gone
// is taken over. A process's claims are removed when it exits.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

const LOCK_DIR = join(tmpdir(), `agentbox-test-ports-${process.getuid?.() ?? 0}`);
const LOWEST = 10_000;

/** Lock files this process created, removed at exit. */
const claimed = new Set<number>();
process.once('exit', () => {
  for (const port of claimed) {
    try {
      unlinkSync(join(LOCK_DIR, String(port)));
    } catch {
      // already gone: nothing to release
    }
  }
});

/** Whether 127.0.0.1:`port` can be listened on now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The first port of the kernel's ephemeral range, which outgoing connections take their local ports from. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims `port` for this process: true when its lock file is now ours. */
function claim(port: number): boolean {
  const file = join(LOCK_DIR, String(port));
  try {
    const fd = openSync(file, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // Held: take it over only when its holder is gone, by renaming a fresh claim over it (atomic, so two
  // takers cannot both win: each re-reads the file afterwards and only the last writer sees its own pid).
  let holder = 0;
  try {
    holder = Number(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
  if (!holder || holder === process.pid || alive(holder)) return false;
  const mine = `${file}.${process.pid}`;
  const fd = openSync(mine, 'w', 0o600);
  writeSync(fd, String(process.pid));
  closeSync(fd);
  renameSync(mine, file);
  return Number(readFileSync(file, 'utf8')) === process.pid;
}

/**
 * A TCP port free on 127.0.0.1 and reserved for this process until it exits: below the kernel's
 * ephemeral range (so no outgoing connection or listen(0) takes it meanwhile) and claimed against
 * every other test process. Never the same one twice: callers take several in a row (api, metrics, …).
 * Below the range also suits a box in a container, whose network namespace has Docker's embedded DNS
 * resolver listening on 127.0.0.11 at ephemeral ports.
 */
export async function freePort(): Promise<number> {
  mkdirSync(LOCK_DIR, { recursive: true, mode: 0o700 });
  const high = ephemeralLow();
  for (let attempt = 0; attempt < 1000; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if (claimed.has(port) || !claim(port)) continue;
    claimed.add(port);
    if (await canListen(port)) return port;
    // Something outside the suite holds it: keep the claim (so we do not retry it) and pick another.
  }
  throw new Error(`no free port found between ${LOWEST} and ${high} (claims in ${LOCK_DIR})`);
}
