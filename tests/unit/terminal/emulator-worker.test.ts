// The terminal emulators' worker under a tty agent's terminal: a late viewer's screen meets the output after it exactly under a fast producer, back-pressure bounds what waits for the worker, a crash of the worker is survived, and the worker never keeps the process alive.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import t from 'tap';
import { AgentTerminal, EMULATOR_HIGH_WATER, SCREEN_UNAVAILABLE } from '../../../management-api/src/adapters/orchestrator/agent-terminal.js';
import { EmulatorHost } from '../../../management-api/src/adapters/orchestrator/emulator-host.js';
import { FakeTty, plain, recordingViewer, seqText } from './support/fake-terminal.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Feed `text` to `terminal` in reads of `chunk` bytes (cut anywhere, as a master's reads are), one read per turn of the loop, waiting while paused. */
async function produce(terminal: AgentTerminal, tty: FakeTty, text: string, chunk: number, onRead?: (at: number) => void): Promise<void> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += chunk) {
    await tty.whenReading();
    terminal.output(bytes.subarray(at, at + chunk));
    onRead?.(at + chunk);
    if ((at / chunk) % 4 === 3) await new Promise((r) => setImmediate(r));
  }
}

t.test('a late viewer gets the screen, then exactly the output after it (seq, fast producer)', async (t) => {
  const host = new EmulatorHost();
  t.teardown(() => host.close());
  const tty = new FakeTty();
  const terminal = new AgentTerminal(tty.tty, host);
  const LAST = 400_000;
  const viewers: Array<ReturnType<typeof recordingViewer>> = [];
  // Viewers attach while the producer runs, each at a different point of the stream.
  const attachAt = new Set([100_000, 600_000, 1_500_000, 2_400_000]);
  await produce(terminal, tty, seqText(1, LAST), 4095, (at) => {
    for (const mark of attachAt)
      if (at >= mark) {
        attachAt.delete(mark);
        const viewer = recordingViewer();
        terminal.attach(viewer);
        viewers.push(viewer);
      }
  });
  terminal.outputEnded();
  terminal.ended({ id: 'agt_seq', state: 'exited' });
  t.equal(viewers.length, 4);
  for (const [i, viewer] of viewers.entries()) {
    t.match(await viewer.closed, { code: 1000 }, `viewer ${i}: closed at the end`);
    t.match(viewer.records, [{ type: 'exit', agent: { id: 'agt_seq' } }], `viewer ${i}: the exit record after the output`);
    const [screen, ...after] = viewer.frames;
    // A read may end between \r and \n: the screen then moves the cursor back rather than holding the \r.
    const lines = (plain(screen!.toString('utf8')) + Buffer.concat(after).toString('utf8')).split(/\r?\n/).filter((line) => line !== '');
    const numbers = lines.map(Number);
    const first = numbers[0]!;
    t.ok(first > 1, `viewer ${i}: its screen starts within the stream (line ${first})`);
    const gaps = numbers.filter((n, k) => n !== first + k);
    t.same(gaps.slice(0, 3), [], `viewer ${i}: lines ${first}..${LAST} with no gap and no duplicate`);
    t.equal(numbers.at(-1), LAST, `viewer ${i}: up to the last line`);
  }
});

t.test('back-pressure: what waits for the worker stays under the high-water mark (plus one read)', async (t) => {
  const host = new EmulatorHost();
  t.teardown(() => host.close());
  const tty = new FakeTty();
  const terminal = new AgentTerminal(tty.tty, host);
  const CHUNK = 64 * 1024;
  const line = `${'x'.repeat(70)}\x1b[31mred\x1b[0m\r\n`;
  const block = line.repeat(Math.ceil(CHUNK / line.length)).slice(0, CHUNK);
  let most = 0;
  // 48 MiB written as fast as reading allows: without back-pressure all of it would wait for the worker.
  for (let i = 0; i < 768; i++) {
    await tty.whenReading();
    terminal.output(Buffer.from(block));
    most = Math.max(most, terminal.unparsedBytes);
    if (i % 16 === 15) await new Promise((r) => setImmediate(r));
  }
  t.ok(tty.pauses > 0, `reading was paused (${tty.pauses} times)`);
  t.ok(most <= EMULATOR_HIGH_WATER + CHUNK, `at most ${most} bytes waited for the worker`);
  terminal.output(Buffer.from('the-last-line'));
  t.match((await terminal.tail(3))?.promptLine, /the-last-line/, 'the screen caught up');
  t.equal(terminal.unparsedBytes, 0, 'everything posted was parsed');
});

t.test('a crash of the worker: logged, viewers told the screen is unavailable, output goes on, the next terminal gets a new worker', async (t) => {
  const logged: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  const host = new EmulatorHost(logger);
  t.teardown(() => host.close());
  const tty = new FakeTty();
  const terminal = new AgentTerminal(tty.tty, host);
  terminal.output(Buffer.from('before the crash\r\n'));
  const early = recordingViewer();
  terminal.attach(early);
  t.match((await terminal.tail(2))?.promptLine, /before the crash/);
  t.match(early.text(), /before the crash/, 'a viewer before the crash got the screen');

  // Keep the worker busy, so that a viewer is waiting for its screen when the worker dies; the producer is paused by then.
  const busy = Buffer.from(seqText(1, 300_000));
  for (let at = 0; at < busy.length && !tty.paused; at += 65536) terminal.output(busy.subarray(at, at + 65536));
  t.ok(tty.paused, 'reading is paused, waiting for the worker');
  const waiting = recordingViewer();
  terminal.attach(waiting);
  const tail = terminal.tail(2);
  const worker = host.worker!;
  await worker.terminate();

  t.equal(await tail, undefined, 'a waiting tail is answered: no screen');
  t.equal(waiting.frames[0]?.toString('utf8'), SCREEN_UNAVAILABLE, 'the waiting viewer is told the screen is unavailable');
  t.notOk(tty.paused, 'reading goes on');
  t.match(logged, [{ event: 'TerminalEmulatorExited', terminals: 1 }], 'the crash is logged');
  terminal.output(Buffer.from('after the crash\r\n'));
  t.match(early.text(), /after the crash/, 'output still reaches viewers');
  t.match(waiting.text(), /after the crash/);
  const late = recordingViewer();
  terminal.attach(late);
  await new Promise((r) => setImmediate(r));
  t.equal(late.frames[0]?.toString('utf8'), SCREEN_UNAVAILABLE, 'a viewer attaching after the crash is told too');
  t.equal(await terminal.tail(2), undefined);
  terminal.outputEnded();
  terminal.ended({ id: 'agt_crashed' });
  t.match(await late.closed, { code: 1000 }, 'the end still reaches viewers');
  terminal.dispose();

  const next = new AgentTerminal(new FakeTty().tty, host);
  next.output(Buffer.from('a new terminal\r\n'));
  t.not(host.worker, worker, 'a new worker was started');
  t.match((await next.tail(2))?.promptLine, /a new terminal/, 'and it keeps the new terminal’s screen');
  next.dispose();
});

t.test('the worker never keeps the process alive', (t) => {
  // A process with a live emulator and nothing else to do ends by itself.
  const started = Date.now();
  const child = spawnSync(process.execPath, [...process.execArgv, path.join(here, 'support/idle-emulator.ts')], { encoding: 'utf8', timeout: 60_000 });
  t.equal(child.status, 0, child.stderr);
  t.match(child.stdout, /screen: hello/);
  t.ok(Date.now() - started < 60_000, 'it exited on its own');
  t.end();
});
