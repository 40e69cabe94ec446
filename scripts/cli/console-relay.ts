// Gives the box a console supervisord can forward its programmes' output to. supervisord reopens
// its own stdout (/dev/stdout) for each programme, which fails with ENXIO when that is a socket —
// as it is when a Node process runs us with piped stdio. In that case the box writes into a FIFO
// and this process relays the FIFO to its own stdout.
import { execFileSync } from 'node:child_process';
import { constants, fstatSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The stdio to give the entrypoint for its stdout and stderr, and how to clean up. */
export interface BoxConsole {
  stdio: 'inherit' | number;
  close(): void;
}

/** `inherit` when our stdout can be reopened by path; otherwise a relayed FIFO. */
export function boxConsole(): BoxConsole {
  if (!fstatSync(1).isSocket()) return { stdio: 'inherit', close: () => {} };
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-console-'));
  const fifo = path.join(dir, 'console');
  execFileSync('mkfifo', ['-m', '0600', fifo]);
  // Open the read end first (non-blocking) so opening the write end does not wait for a reader.
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY);
  const reader = new Socket({ fd: readFd, readable: true, writable: false });
  reader.pipe(process.stdout, { end: false });
  rmSync(dir, { recursive: true, force: true }); // The open descriptors keep the FIFO alive.
  return {
    stdio: writeFd,
    close: () => reader.destroy(),
  };
}
