// Boxes side by side on one machine: several `agentbox up --local` started at once with no port set
// (the manifest leaves every port at its default, no AGENTBOX_*_PORT variable), as a second and a
// third `npm start` would be. Each gets ports of its own, every one becomes ready, `agentbox boxes`
// lists them all, and `agentbox down` stops each. A port the manifest sets, taken, still stops the start.
import t, { type Test } from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { lastLines } from '../helpers/log-tail.js';
import { waitFor } from '../helpers/wait.js';
import { BOOT_ONLY_MANIFEST } from '../runtime-contract/support/box-runner.js';

const cli = path.join(repoRoot, 'dist/scripts/cli/agentbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-side-by-side-'));
chmodSync(work, 0o755);
const manifest = path.join(work, 'agentbox.toml');
writeFileSync(manifest, BOOT_ONLY_MANIFEST);
// A plain user environment with a registry of this test's own and no port variable at all.
const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/root', LANG: 'C.UTF-8', XDG_RUNTIME_DIR: path.join(work, 'xdg') };

interface Started {
  root: string;
  log: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
}

function up(t: Test, name: string, file = manifest): Started {
  const root = path.join(work, name);
  const log = path.join(work, `${name}.log`);
  const fd = openSync(log, 'a');
  // Not --quiet: the programmes' own lines go to the log too, so a box that never gets ready says why.
  const proc = spawn(process.execPath, [cli, 'up', '--local', '--manifest', file, '--root', root], { cwd: work, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (proc.exitCode === null) {
      proc.kill('SIGTERM');
      await exited;
    }
  });
  return { root, log, proc, exited };
}

function agentbox(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: work, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Listed {
  root: string;
  ready: boolean;
  apiUrl: string;
  ports: Array<{ name: string; port: number }>;
}

t.test('three boxes started at once with no port set: each gets its own ports and becomes ready', async (t) => {
  const boxes = ['first', 'second', 'third'].map((name) => up(t, name));
  const listed = await waitFor(
    'all three ready',
    () => {
      // One that ended is never coming up: say why at once, not after the wait.
      const ended = boxes.find((b) => b.proc.exitCode !== null);
      if (ended)
        throw new Error(`agentbox up for ${ended.root} exited (${ended.proc.exitCode}) before all three were ready:\n${readFileSync(ended.log, 'utf8')}`);
      const r = agentbox('boxes', '--json');
      const all = JSON.parse(r.stdout || '[]') as Listed[];
      return all.length === 3 && all.every((b) => b.ready) ? all : undefined;
    },
    90_000,
    250,
  ).catch((err: Error) => {
    const said = boxes.map((b) => `${path.basename(b.root)}, last 60 lines:\n${lastLines(b.log, 60)}`);
    throw new Error(`${err.message}; agentbox boxes --json: ${agentbox('boxes', '--json').stdout}\n${said.join('\n')}`);
  });
  t.same(listed.map((b) => b.root).sort(), boxes.map((b) => b.root).sort(), 'agentbox boxes lists each');
  const ports = listed.flatMap((b) => b.ports.map((p) => p.port));
  t.equal(new Set(ports).size, ports.length, `no port is shared between the boxes (${ports.join(', ')})`);
  for (const b of listed) t.equal((await fetch(`${b.apiUrl}/ready`)).status, 200, `${b.root} answers /ready on its own port`);
  // All three default to one API port: at most one of them has it, the others say where they went.
  const movedApi = boxes.filter((b) =>
    /agentbox: port \d+ \(the API's default\) is in use: using \d+; set api\.port in the manifest or AGENTBOX_API_PORT to require a port/.test(
      readFileSync(b.log, 'utf8'),
    ),
  );
  t.ok(movedApi.length >= 2, `the boxes whose default API port was taken say which port they use instead (${movedApi.length} of 3)`);
  for (const b of boxes) {
    const down = agentbox('down', '--root', b.root);
    t.equal(down.code, 0, down.stderr);
    t.equal(await b.exited, 0, `${path.basename(b.root)}: agentbox up saw its box stop`);
  }
});

t.test('a port the manifest sets, taken by another box, stops the start with the line that names it', async (t) => {
  const first = up(t, 'holder');
  const held = await waitFor(
    'the holder ready',
    () => {
      const all = JSON.parse(agentbox('boxes', '--json').stdout || '[]') as Listed[];
      return all.find((b) => b.root === first.root && b.ready);
    },
    60_000,
    250,
  );
  const apiPort = held.ports.find((p) => p.name === 'API')!.port;
  const pinned = path.join(work, 'pinned.toml');
  writeFileSync(pinned, `${BOOT_ONLY_MANIFEST}\n[api]\nport = ${apiPort}\n`);
  const second = up(t, 'pinned', pinned);
  t.equal(await second.exited, 1, 'refused');
  t.match(
    readFileSync(second.log, 'utf8'),
    new RegExp(
      `port ${apiPort} on 127\\.0\\.0\\.1 is already in use: the API \\(programme management-api, manifest key api\\.port, override AGENTBOX_API_PORT\\)`,
    ),
  );
  t.equal(agentbox('down', '--root', first.root).code, 0);
  await first.exited;
});
