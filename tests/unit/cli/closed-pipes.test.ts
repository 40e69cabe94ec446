// The CLI when its reader goes away (`agentbox … | head`): standard output's reader gone stops a command with 141 (as SIGPIPE would),
// never 0; standard error's reader gone drops the messages and the work goes on, so a backup still finishes whole. A real box, the real CLI.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { agentboxBin } from '../../helpers/cli.js';
import { makeRoot, startTestServer, type TestServer } from '../../api/support/harness.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-closed-pipes-'));
let box: TestServer;
let root: Awaited<ReturnType<typeof makeRoot>>;
t.before(async () => {
  root = await makeRoot();
  box = await startTestServer({
    root,
    toml: '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\ncritical = []\n',
  });
});
t.teardown(async () => {
  await box?.close();
  await root?.cleanup();
  await rm(work, { recursive: true, force: true });
});

/**
 * Run the CLI with the reader of `gone` closed before it starts: the read end is closed as soon as
 * the process is spawned (before it can have loaded, let alone written), and the child's copy ends
 * at its exec (close-on-exec), so every write to that stream meets a pipe without a reader.
 */
function withReaderGone(gone: 'stdout' | 'stderr', ...args: string[]): Promise<{ code: number | null; other: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [agentboxBin, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work },
    });
    p[gone].destroy();
    let other = '';
    p[gone === 'stdout' ? 'stderr' : 'stdout'].on('data', (d: Buffer) => (other += d.toString()));
    p.on('close', (code) => resolve({ code, other }));
  });
}

t.test("standard output's reader gone: 141, never 0", async (t) => {
  t.equal((await withReaderGone('stdout', '--help')).code, 141, 'the top help');
  t.equal((await withReaderGone('stdout', 'snapshot', 'ls', '--root', root.dir, '--url', box.server.apiUrl)).code, 141, 'a listing from the box');
});

t.test("standard error's reader gone: a backup goes on and finishes whole", async (t) => {
  const to = path.join(work, 'quiet-backup');
  const backup = await withReaderGone('stderr', 'backup', '--root', root.dir, '--to', to);
  t.equal(backup.code, 0, 'the backup succeeded');
  t.ok(existsSync(path.join(to, 'backup.json')), 'and is there, whole (its index written last)');
  const verify = await withReaderGone('stderr', 'backup', 'verify', to);
  t.equal(verify.code, 0, verify.other);
  t.match(verify.other, /whole/, 'verify says it is whole on standard output');

  // Its JSON answer's reader gone too: the backup is made, and the status says the answer was not taken.
  const answered = path.join(work, 'unread-answer');
  t.equal((await withReaderGone('stdout', 'backup', '--root', root.dir, '--to', answered, '--json')).code, 141);
  t.ok(existsSync(path.join(answered, 'backup.json')), 'the backup was still made whole');
});
