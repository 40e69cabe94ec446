// `agentbox run -it` and `agentbox attach` on a real pseudo-terminal against a real box: typing, output, resize, the detach keys, the exit code.
import t from 'tap';
import pty from 'node-pty';
import { agentboxBin } from '../../helpers/cli.js';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { startTestServer, waitFor } from '../../api/support/harness.js';

const ORCHESTRATOR = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_'))) as Record<string, string>;

const box = await startTestServer({ toml: ORCHESTRATOR, env: { PATH: '/usr/bin:/bin' } });
t.teardown(() => box.close());
const target = ['--url', box.server.apiUrl, '--root', box.paths.root];

/** The CLI on a terminal of its own: what it printed, and its exit. */
function onPty(args: string[], size = { cols: 90, rows: 25 }) {
  const term = pty.spawn(process.execPath, [agentboxBin, ...args], { name: 'xterm', ...size, cwd: process.cwd(), env });
  let out = '';
  term.onData((d) => (out += d));
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  return {
    term,
    exited,
    text: () => out,
    /** Resolves once the output after `from` holds `pattern`. */
    waitFor: (pattern: RegExp, from = 0) => waitFor(`${pattern} on the terminal`, () => pattern.test(out.slice(from)), 15_000),
  };
}

t.test('run -it: a shell on this terminal, resize, detach, attach again, the exit code', async (t) => {
  const session = onPty(['run', '-it', '--name', 'it-shell', ...target, '--', '/bin/bash', '--noprofile', '--norc', '-i']);
  t.teardown(() => session.term.kill());
  session.term.write('PS1="pr$ "\r');
  session.term.write('echo "sum-$((6 * 7))"\r');
  await session.waitFor(/sum-42/);
  t.pass('a typed command runs and its output comes back');

  session.term.write('stty size\r');
  await session.waitFor(/25 90/);
  t.pass('the agent’s terminal has the local size');
  let mark = session.text().length;
  session.term.resize(120, 33);
  await waitFor(
    'the resize to reach the agent',
    async () => {
      session.term.write('stty size\r');
      await new Promise((r) => setTimeout(r, 200));
      return /33 120/.test(session.text().slice(mark));
    },
    15_000,
  );
  t.pass('a local resize (SIGWINCH) resizes the agent’s terminal');

  // Raw mode: Ctrl-C reaches the agent (the shell drops the line), the CLI stays.
  session.term.write('sleep 100\r');
  await new Promise((r) => setTimeout(r, 300));
  session.term.write('\x03');
  mark = session.text().length;
  session.term.write('echo "after-$((1 + 1))"\r');
  await session.waitFor(/after-2/, mark);
  t.pass('Ctrl-C went to the agent, not to the CLI');

  session.term.write('\x10\x11');
  t.equal(await session.exited, 0, 'the detach keys end the CLI with 0');
  t.match(session.text(), /detached from agt_/);
  const ps = await runAgentboxAsync(['ps', ...target, '--json'], { env });
  const agent = (JSON.parse(ps.stdout) as Array<{ id: string; name: string; state: string }>).find((a) => a.name === 'it-shell');
  t.match(agent, { state: 'running' }, 'the agent runs on after the detach');

  const again = onPty(['attach', ...target, 'it-shell']);
  t.teardown(() => again.term.kill());
  await again.waitFor(/after-2/);
  t.pass('attach shows the screen first');
  again.term.write('exit 5\r');
  t.equal(await again.exited, 5, `the CLI exits with the agent’s code: ${again.text().slice(-300)}`);
});
