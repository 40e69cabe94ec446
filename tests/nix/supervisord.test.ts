// Every generated supervisord.conf is accepted by a real supervisord running as uid 1000 with its
// socket under the re-rooted /run/agentbox; the readiness tag reaches the real seal listener;
// programme command lines and environments arrive exactly as written in the manifest.
import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderManifest } from '../../scripts/cli/render-box.js';
import { goldenFixtures, fixturesDir } from '../../scripts/cli/render-golden.js';
import { waitFor } from '../helpers/wait.js';
import { repoRoot } from './helpers.js';
import { boxSupervisorUrl, startedBySupervisord } from '../../management-api/src/programme/supervised.js';
import { supervisorSocket } from '../../management-api/src/probes/supervisor-programs.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { boxDirs, chownTree, processStates, removeBoxDirs, shutdown, startSupervisord, supervisorctlStatus, xmlrpc } from './supervisord-helpers.js';

const ctx = { targetArch: 'x86_64' as const, env: {} };

/**
 * Render `manifestFile` re-rooted under a fresh root, start supervisord, and return handles.
 * `bootstrap` replaces the body of the stage B double (a shell script).
 */
async function boot(manifestFile: string, options: { bootstrap?: string } = {}) {
  const { root, bin } = boxDirs();
  if (options.bootstrap !== undefined) writeFileSync(path.join(bin, 'agentbox-bootstrap'), `#!/bin/sh\n${options.bootstrap}\n`);
  t.teardown(() => removeBoxDirs({ root }));
  const { rendered, validation } = await renderManifest({ manifestFile, outDir: path.join(root, 'etc/agentbox'), root, bin, context: ctx });
  if (!rendered) throw new Error(`invalid manifest ${manifestFile}: ${JSON.stringify(validation.diagnostics)}`);
  const conf = path.join(root, 'etc/agentbox/supervisord.conf');
  writeFileSync(conf, rendered.files['supervisord.conf']);
  chownTree(root);
  const socket = path.join(root, 'run/agentbox/supervisord.sock');
  const proc = startSupervisord(conf, bin, root);
  let output = '';
  proc.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  await waitFor(`supervisord's socket ${socket}`, () => existsSync(socket) || proc.exitCode !== null, 20_000);
  if (proc.exitCode !== null) throw new Error(`supervisord exited ${proc.exitCode}:\n${output}`);
  const programmes = [...rendered.files['supervisord.conf'].matchAll(/^\[(?:program|eventlistener):([^\]]+)\]$/gm)].map((m) => m[1]!);
  return { root, conf, socket, proc, rendered, programmes, output: () => output };
}

t.test('every golden fixture: supervisord parses the config, starts as uid 1000 and serves its socket', async (t) => {
  const names = await goldenFixtures();
  // Booted side by side: each waits mostly on supervisord's one-second ticks.
  const boxes = await Promise.all(names.map((name) => boot(path.join(fixturesDir(), `${name}.toml`))));
  t.teardown(() => Promise.all(boxes.map((b) => shutdown(b.proc, b.socket))));
  for (const [i, name] of names.entries()) {
    const box = boxes[i]!;
    const state = await xmlrpc(box.socket, 'supervisor.getState');
    t.match(state, /<name>statename<\/name>\s*<value><string>RUNNING<\/string>/, `${name}: supervisord is RUNNING`);
    const pid = Number(readFileSync(path.join(box.root, 'run/agentbox/supervisord.pid'), 'utf8'));
    const uid = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)?.[1];
    t.not(uid, '0', `${name}: supervisord (pid file under the root) does not run as root`);
    const states = processStates(await xmlrpc(box.socket, 'supervisor.getAllProcessInfo'));
    t.same(Object.keys(states).sort(), [...box.programmes].sort(), `${name}: every programme of the config is known to supervisord`);
    const status = supervisorctlStatus(box.conf);
    t.match(status.stdout, /management-api\s+(STARTING|RUNNING)/, `${name}: supervisorctl reaches it through the generated [supervisorctl] section`);
  }
  const codes = await Promise.all(boxes.map((b) => shutdown(b.proc, b.socket)));
  t.same(
    codes,
    names.map(() => 0),
    'every supervisord shut down cleanly',
  );
});

t.test('the reference box reaches the seal: bootstrap exits, management-api runs, the seal listener seals', async (t) => {
  const box = await boot(path.join(fixturesDir(), 'reference.toml'));
  t.teardown(() => shutdown(box.proc, box.socket));
  const seal = path.join(box.root, 'run/agentbox/bootstrap.done');
  await waitFor('the bootstrap seal', () => existsSync(seal), 20_000);
  t.same((JSON.parse(readFileSync(seal, 'utf8')) as { required: string[] }).required, ['egress-proxy', 'management-api']);
  const states = processStates(await xmlrpc(box.socket, 'supervisor.getAllProcessInfo'));
  t.same(states, { bootstrap: 'EXITED', 'egress-proxy': 'RUNNING', 'management-api': 'RUNNING', 'seal-listener': 'RUNNING' });
  // The event line follows the seal file and reaches supervisord's output through a pipe: wait for it rather than race it.
  await waitFor("BootstrapCompleted in supervisord's output", () => /"event":"BootstrapCompleted"/.test(box.output()), 20_000);
  t.match(box.output(), /"event":"BootstrapCompleted"/, 'the listener logged BootstrapCompleted on stderr, which reaches the container log');
});

t.test("stage B's completion report reaches the seal listener through the generated config: sealed while stage B still runs", async (t) => {
  // The real report (boot/stage-b-report.ts), then a stage B that lingers: only the report can seal.
  const report = path.join(repoRoot, 'dist/management-api/src/boot/stage-b-report.js');
  const box = await boot(path.join(fixturesDir(), 'reference.toml'), {
    bootstrap: `${process.execPath} --input-type=module -e "(await import('${report}')).reportStageBCompleted(process.env)"\nexec sleep 1000`,
  });
  t.teardown(() => shutdown(box.proc, box.socket));
  const seal = path.join(box.root, 'run/agentbox/bootstrap.done');
  await waitFor('the bootstrap seal', () => existsSync(seal), 20_000);
  const states = processStates(await xmlrpc(box.socket, 'supervisor.getAllProcessInfo'));
  t.equal(states['bootstrap'], 'RUNNING', 'stage B has not exited: the seal came from its report');
  t.notMatch(box.output(), /XSUPERVISOR/, 'the report is an event, not log output');
});

t.test('command lines, environments and the readiness tag arrive exactly as the manifest wrote them', async (t) => {
  const { root: scratch, bin } = boxDirs();
  t.teardown(() => removeBoxDirs({ root: scratch }));
  const manifest = path.join(scratch, 'agentbox.toml');
  const args = ["it's 100% done", 'a b', 'x"y', '$HOME', 'semi;colon', '#hash', 'back\\slash', ''];
  const environment = { GREETING: 'hello, world', RATIO: '50%', EMPTY: '', APOSTROPHE: "it's", EQUALS: 'a=b' };
  writeFileSync(
    manifest,
    `${[
      '[programs.rec]',
      `command = ${JSON.stringify(path.join(bin, 'record'))}`,
      `args = [${args.map((a) => JSON.stringify(a)).join(', ')}]`,
      'required_for_readiness = true',
      'autorestart = "always"',
      `environment = { ${Object.entries(environment)
        .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
        .join(', ')} }`,
    ].join('\n')}\n`,
  );
  const box = await boot(manifest);
  t.teardown(() => shutdown(box.proc, box.socket));
  const record = path.join(box.root, 'record.json');
  await waitFor('the recorder to run', () => existsSync(record), 20_000);
  const got = JSON.parse(readFileSync(record, 'utf8')) as { argv: string[]; env: Record<string, string> };
  t.same(got.argv, args, 'argv survives INI, % expansion and shlex');
  for (const [k, v] of Object.entries(environment)) t.equal(got.env[k], v, `environment ${k}`);
  t.equal(got.env['AGENTBOX_REQUIRED_FOR_READINESS'], '1', 'the readiness tag');
  t.equal(got.env['AGENTBOX_ROOT'], box.root, 'the runtime root from [supervisord] environment');
  // Both answers of programme/supervised.ts, from what the generated config really gives a programme.
  t.ok(startedBySupervisord(got.env), 'the programme knows supervisord started it');
  t.equal(boxSupervisorUrl(got.env), `unix://${box.socket}`, "and has the box's supervisord URL");
  t.equal(supervisorSocket(got.env, runtimePaths(got.env)), box.socket, "which names the box's supervisord socket");
  const seal = path.join(box.root, 'run/agentbox/bootstrap.done');
  await waitFor('the seal', () => existsSync(seal), 20_000);
  t.same(
    (JSON.parse(readFileSync(seal, 'utf8')) as { required: string[] }).required,
    ['egress-proxy', 'management-api', 'rec'],
    'the seal waited for the tagged programme too',
  );
});
