// Stage B whose log reader is gone (supervisord killed: its pipes closed): its work stands, and only a real check's failure is recorded as why the boot failed.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

// The built entry supervisord runs as the programme `bootstrap` (the suite builds before it runs).
const entry = new URL('../../dist/management-api/src/bin/bootstrap.js', import.meta.url).pathname;

/**
 * A descriptor to write into whose reader is gone, as supervisord's end of a programme's pipe is
 * once supervisord was killed: a FIFO opened for reading and writing (so opening it never waits),
 * opened again for writing, then its only reader closed. Every write into it fails with EPIPE.
 */
function brokenPipe(dir: string): number {
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, 'r+');
  const writer = openSync(fifo, 'w');
  closeSync(reader);
  return writer;
}

/** Stage B run as supervisord would start it, on a box whose manifest is `manifest`, writing only into a broken pipe. */
async function stageBWithoutReader(t: Test, manifest: string) {
  const root = mkdtempSync(path.join(tmpdir(), 'abx-reader-gone-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  mkdirSync(path.dirname(paths.manifestFile), { recursive: true });
  mkdirSync(paths.workspaceDir, { recursive: true });
  mkdirSync(paths.runDir, { recursive: true });
  writeFileSync(paths.manifestFile, manifest);
  const out = brokenPipe(root);
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env['PATH'], AGENTBOX_ROOT: root, AGENTBOX_LOCAL: '1', SUPERVISOR_ENABLED: '1' },
    stdio: ['ignore', out, out],
    timeout: 60_000,
  });
  closeSync(out);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
  return { code, signal, paths };
}

t.test('stage B that passed: done, whatever its log and its report to supervisord could not write', async (t) => {
  const { code, signal, paths } = await stageBWithoutReader(t, '[agentbox]\nname = "orphaned"\n');
  t.same([code, signal], [0, null], 'exits 0: its work is done');
  t.ok(existsSync(paths.runtimeHintsFile), 'its hints are written');
  t.notOk(existsSync(paths.bootstrapFailedFile), 'no failure recorded (it was "EPIPE: broken pipe, write")');
});

t.test("stage B that failed: the check's own reason is recorded, not the pipe's", async (t) => {
  const { code, signal, paths } = await stageBWithoutReader(
    t,
    '[agentbox]\nname = "orphaned"\n\n[features]\ngpu = "rocm"\n\n[security.exceptions.gpu-rocm]\nreason = "the devices are absent on purpose"\n',
  );
  t.same([code, signal], [1, null], 'exits 1');
  const marker = JSON.parse(readFileSync(paths.bootstrapFailedFile, 'utf8')) as { reason: string };
  t.match(marker.reason, /^features\.gpu = "rocm" but \/dev\/kfd/, 'the reason is the missing devices');
  t.notMatch(marker.reason, /EPIPE/);
});
