// Interactive terminals on the real API with real sandboxed agents, in bubblewrap and with the launcher alone: echo, viewers, late attach, resize, input, refusals, the end.
import t from 'tap';
import { environOf } from './support/agent-processes.js';
import { signIn } from './support/dashboard.js';
import { startTestServer, waitFor } from './support/harness.js';
import { openViewer, refused } from './support/terminal-viewer.js';

const ORCHESTRATOR = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
type Agent = { id: string; pid: number; state: string; exitCode?: number; signal?: string; reason?: string; tty?: boolean };
const BASH = { command: '/bin/bash', args: ['--noprofile', '--norc', '-i'], env: { PS1: 'prompt$ ' } };

for (const namespaces of ['auto', 'off'] as const) {
  t.test(`sandbox.namespaces = "${namespaces}"`, async (t) => {
    const box = await startTestServer({ toml: `${ORCHESTRATOR}[sandbox]\nnamespaces = "${namespaces}"\n`, env: { PATH: '/usr/bin:/bin' } });
    t.teardown(() => box.close());
    const mode = ((await box.api('/health', { auth: false })).json['sandbox'] as { namespaces: { active?: boolean } }).namespaces.active
      ? 'bubblewrap'
      : 'launcher';
    t.comment(`agents run ${mode === 'bubblewrap' ? 'in bubblewrap' : 'under the launcher alone'}`);
    if (namespaces === 'auto' && mode !== 'bubblewrap') t.comment('bubblewrap is not usable here: both runs use the launcher alone');

    const spawn = async (name: string, body: Record<string, unknown>): Promise<Agent> => {
      const res = await box.api('/v1/agents', { body: { name, ...body } });
      if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
      return res.json['agent'] as Agent;
    };
    const status = async (id: string): Promise<Agent> => (await box.api(`/v1/agents/${id}`)).json['agent'] as Agent;

    t.test('a TERM the caller asks for wins over the xterm default', async (t) => {
      const agent = await spawn('term-asked', { command: '/bin/sh', args: ['-c', 'echo "term=$TERM"'], env: { TERM: 'vt100' }, tty: true });
      const ended = await waitFor('the agent to end', async () => {
        const a = await status(agent.id);
        return a.state === 'running' ? undefined : a;
      });
      t.equal(ended.exitCode, 0);
      const log = (await box.api(`/v1/agents/${agent.id}/output`)).json['chunks'] as Array<{ text: string }>;
      t.match(log.map((c) => c.text).join(''), /term=vt100/);
    });

    // Its last writes are still in the kernel when the terminal hangs up (the reader is behind): they must be read, not dropped with the hang-up.
    t.test('the end of a fast writer’s output reaches the log and the screen', async (t) => {
      for (let run = 0; run < 3; run++) {
        const agent = await spawn(`fast-${run}`, { command: '/usr/bin/seq', args: ['1', '300000'], tty: true });
        // Followed until its output ends (the terminal's last holder gone and the master drained): on a loaded
        // machine 2 MB through the terminal and its screen take as long as they take, and the end is an event, not a time.
        const followed = await fetch(`${box.server.apiUrl}/v1/agents/${agent.id}/output?follow=true`, {
          headers: { authorization: `Bearer ${box.key}`, accept: 'text/event-stream' },
        });
        t.equal(followed.status, 200, `run ${run}: its output followed to the end`);
        await followed.text();
        const text = ((await box.api(`/v1/agents/${agent.id}/output?after=0`)).json['chunks'] as Array<{ text: string }>).map((c) => c.text).join('');
        t.match(text, /\n299999\r\n300000\r\n$/, `run ${run}: the log ends with the last line`);
        const late = await openViewer(box, agent.id);
        t.match(await late.screen(), /299999\s+300000/, `run ${run}: the screen shows the last line`);
        await late.closed;
      }
    });

    // The screen is made in the emulators' worker while the agent goes on writing: a viewer must get it as of one point of the output, then the output from exactly there.
    t.test('viewers attaching while a fast writer runs: the screen, then the rest, with no gap and no duplicate', async (t) => {
      const LAST = 300_000;
      const agent = await spawn('seq-attach', { command: '/usr/bin/seq', args: ['1', String(LAST)], tty: true });
      const first = await openViewer(box, agent.id);
      const viewers = [first];
      for (const mark of ['40000\r\n', '120000\r\n', '200000\r\n']) {
        await first.waitFor(mark, 0, 30_000).catch(() => undefined);
        viewers.push(await openViewer(box, agent.id));
      }
      let checked = 0;
      for (const [i, viewer] of viewers.entries()) {
        const { code } = await viewer.closed;
        // A viewer whose screen took longer than 1 MiB of output is dropped as too slow (1013): that is the rule, not a gap.
        if (code === 1013) {
          t.comment(`viewer ${i} was dropped as too slow`);
          continue;
        }
        t.equal(code, 1000, `viewer ${i}: closed at the end`);
        const screen = await viewer.screen();
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the serialized screen's escape sequences are taken out
        const text = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '') + viewer.text().slice(screen.length);
        // A line break, whether the screen or the output after it holds its \r (a read may end between \r and \n, and the screen then moves the cursor instead).
        const numbers = text
          .split(/\r?\n/)
          .filter((line) => line !== '')
          .map(Number);
        const start = numbers[0]!;
        t.same(numbers.filter((n, k) => n !== start + k).slice(0, 3), [], `viewer ${i}: lines ${start}..${LAST} in order, none missing or repeated`);
        t.equal(numbers.at(-1), LAST, `viewer ${i}: up to the last line`);
        checked++;
      }
      t.ok(checked >= 2, `${checked} viewers checked`);
    });

    t.test('a shell on a terminal: echo, several viewers, a late one gets the screen, resize, input, the end', async (t) => {
      const agent = await spawn('shell', { ...BASH, tty: true, cols: 100, rows: 30 });
      t.equal(agent.tty, true, 'the record says tty');
      const one = await openViewer(box, agent.id);
      await one.waitFor('prompt$ ');
      one.send('echo "hi-$((6 * 7))"\r');
      await one.waitFor('hi-42\r\n');
      one.send('stty size\r');
      await one.waitFor('30 100');
      one.send('echo "term=$TERM"\r');
      await one.waitFor('term=xterm-256color\r\n');
      t.pass('a tty agent is told its terminal is an xterm');

      // A viewer attaching late is sent the screen first: what the shell printed before it came.
      const two = await openViewer(box, agent.id);
      t.match(await two.screen(), /hi-42[\s\S]*30 100/, 'the late viewer first receives the current screen');
      const mark = two.text().length;
      one.send({ type: 'resize', cols: 132, rows: 43 });
      one.send('stty size\r');
      await one.waitFor('43 132');
      await two.waitFor('43 132', mark);
      t.pass('a resize reaches the agent (stty size inside), and both viewers see its answer');

      const input = await box.api(`/v1/agents/${agent.id}/input`, { body: { data: 'echo "via-$((1 + 1))-input"\r' } });
      t.equal(input.status, 204, 'POST input');
      await one.waitFor('via-2-input\r\n');
      await two.waitFor('via-2-input\r\n', mark);
      const log = (await box.api(`/v1/agents/${agent.id}/output`)).json['chunks'] as Array<{ text: string }>;
      t.match(log.map((c) => c.text).join(''), /via-2-input/, 'the output log holds the terminal output too');

      // Bad control records are answered, not fatal.
      two.send(Buffer.from('')); // an empty binary frame types nothing
      two.socket.send('not json');
      two.socket.send(JSON.stringify({ type: 'resize', cols: 9999, rows: 1 }));
      await waitFor('two error records', () => two.records.length >= 2);
      t.match(two.records, [
        { type: 'error', message: /JSON record/ },
        { type: 'error', message: /cols must be an integer from 2 to 500/ },
      ]);

      // The end: exit from the shell; each viewer gets the record, then a normal close.
      one.send('exit 7\r');
      const [c1, c2] = await Promise.all([one.closed, two.closed]);
      t.match(c1, { code: 1000, reason: /ended/ });
      t.match(c2, { code: 1000 });
      t.match(one.records.at(-1), { type: 'exit', agent: { id: agent.id, state: 'failed', exitCode: 7 } });
      t.match(await status(agent.id), { state: 'failed', exitCode: 7 }, 'the exit status is the agent’s');
      const after = await box.api(`/v1/agents/${agent.id}/input`, { body: { data: 'x' } });
      t.match(after, { status: 409, json: { error: 'ABX_ERR_NO_TERMINAL', message: /has ended/ } });
      // Attaching after the end: the last screen, then the record.
      const late = await openViewer(box, agent.id);
      t.match(await late.screen(), /via-2-input/);
      t.match(await late.closed, { code: 1000 });
    });

    t.test('Ctrl-C reaches the foreground program, not the sandbox', async (t) => {
      const agent = await spawn('interrupt', { ...BASH, tty: true });
      const v = await openViewer(box, agent.id);
      await v.waitFor('prompt$ ');
      v.send('sleep 600; echo "after-$((2 + 3))"\r');
      await new Promise((r) => setTimeout(r, 300));
      v.send('\x03');
      const from = v.text().length;
      v.send('echo "alive-$((3 * 3))"\r');
      await v.waitFor('alive-9\r\n', from);
      t.notMatch(v.text(), /after-5/, 'the sleep was interrupted, and the shell that ran it lives on');
      t.equal((await status(agent.id)).state, 'running');
      const ended = (await box.api(`/v1/agents/${agent.id}?graceMs=500`, { method: 'DELETE' })).json['agent'] as Agent;
      t.match(ended, { state: 'terminated' }, 'terminate ends a tty agent (an interactive shell ignores SIGTERM: SIGKILL after the grace)');
      t.match(await v.closed, { code: 1000 });
      t.match(v.records.at(-1), { type: 'exit', agent: { state: 'terminated' } });
    });

    t.test('an agent cannot type into its terminal: TIOCSTI and TIOCLINUX are refused', async (t) => {
      const script = [
        'import errno, fcntl, sys, termios',
        'for name, req in (("TIOCSTI", termios.TIOCSTI), ("TIOCLINUX", 0x541C)):',
        '    try:',
        '        fcntl.ioctl(0, req, b"\\x03" if name == "TIOCLINUX" else b"x")',
        '        print(name, "allowed")',
        '    except OSError as e:',
        '        print(name, "refused", errno.errorcode[e.errno])',
      ].join('\n');
      const agent = await spawn('injector', { command: '/usr/bin/python3', args: ['-c', script], tty: true });
      const v = await openViewer(box, agent.id);
      await v.closed;
      t.match(v.text(), /TIOCSTI refused EPERM/);
      t.match(v.text(), /TIOCLINUX refused EPERM/);
      t.notMatch(v.text(), /allowed/);
      t.match(await status(agent.id), { state: 'exited', exitCode: 0 });
    });

    t.test('a limit ends a tty agent like any other', async (t) => {
      const agent = await spawn('spinner', { command: '/bin/sh', args: ['-c', 'while :; do :; done'], tty: true, limits: { cpu_seconds: 1 } });
      const v = await openViewer(box, agent.id);
      await v.closed;
      t.match(v.records.at(-1), { type: 'exit', agent: { state: 'terminated', reason: 'limit:cpu' } });
      t.match(await status(agent.id), { state: 'terminated', reason: 'limit:cpu' });
    });

    t.test('refusals: bad sizes, no terminal, no key, a foreign Origin, agent tokens', async (t) => {
      for (const bad of [{ tty: true, cols: 1 }, { tty: true, rows: 201 }, { cols: 80 }, { tty: 'yes' }]) {
        const res = await box.api('/v1/agents', { body: { name: 'bad', command: '/bin/true', ...bad } });
        t.equal(res.status, 400, JSON.stringify(bad));
        t.match(res.json, { error: 'ABX_ERR_VALIDATION' });
      }
      const piped = await spawn('piped', { command: '/bin/sleep', args: ['600'] });
      await t.rejects(openViewer(box, piped.id), refused(409, /ABX_ERR_NO_TERMINAL/), 'a piped agent has no terminal');
      t.match(await box.api(`/v1/agents/${piped.id}/input`, { body: { data: 'x' } }), {
        status: 409,
        json: { error: 'ABX_ERR_NO_TERMINAL', message: /without "tty": true/ },
      });
      await t.rejects(openViewer(box, 'agt_nothing'), refused(404));

      const tty = await spawn('target', { command: '/bin/cat', args: [], tty: true });
      await t.rejects(openViewer(box, tty.id, {}), refused(401), 'no credential');
      await t.rejects(openViewer(box, tty.id, { authorization: 'Bearer wrong' }), refused(401));
      t.equal((await box.api(`/v1/agents/${tty.id}/input`, { body: { data: 'x' }, auth: false })).status, 401);
      // The dashboard's session: only from the box's own Origin.
      const browser = await signIn(box);
      await t.rejects(openViewer(box, tty.id, { cookie: browser.cookie, origin: 'http://evil.example' }), refused(403, /ABX_ERR_CSRF/));
      await t.rejects(openViewer(box, tty.id, { cookie: browser.cookie }), refused(403, /ABX_ERR_CSRF/), 'no Origin');
      const own = await openViewer(box, tty.id, { cookie: browser.cookie, origin: browser.origin });
      own.send('from-the-dashboard\r');
      await own.waitFor('from-the-dashboard\r\n');
      own.socket.close();
      // Agent tokens: another agent's, and the agent's own, are refused both routes.
      const foreign = (await environOf(piped.pid))['AGENTBOX_TOKEN']!;
      const ownToken = (await environOf(tty.pid))['AGENTBOX_TOKEN']!;
      t.ok(foreign && ownToken, 'the agents hold tokens');
      for (const token of [foreign, ownToken]) {
        await t.rejects(openViewer(box, tty.id, { authorization: `Bearer ${token}` }), refused(403, /ABX_ERR_AGENT_SCOPE/));
        t.match(await box.api(`/v1/agents/${tty.id}/input`, { body: { data: 'x' }, auth: token }), { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE' } });
      }
      for (const a of [piped, tty]) await box.api(`/v1/agents/${a.id}?graceMs=200`, { method: 'DELETE' });
    });
  });
}
