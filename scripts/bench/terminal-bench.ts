// Terminals: keystroke → echo through the WebSocket of a real box (sandboxed tty agent) beside a raw node-pty shell in the same process; late attach with 10,000 lines of scrollback.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pty from 'node-pty';
import WebSocket from 'ws';
import { startBenchBox, type BenchBox } from './dashboard-box.js';
import { median, ms, quantile, table } from './stats.js';

const KEYS = Number(process.env['AGENTBOX_BENCH_TERMINAL_KEYS'] ?? 400);
const ATTACHES = Number(process.env['AGENTBOX_BENCH_TERMINAL_ATTACHES'] ?? 20);
/** The agent echoes itself (raw mode, no line discipline echo): each keystroke makes the round trip through the sandboxed process. */
const ECHOER = ['-c', 'stty raw -echo; exec cat'];

/** One keystroke's round trip: send, then wait for its byte to come back. */
async function roundTrips(send: (key: string) => void, onData: (listener: (text: string) => void) => void, n: number): Promise<number[]> {
  const times: number[] = [];
  let waiting: ((text: string) => void) | undefined;
  onData((text) => waiting?.(text));
  for (let i = 0; i < n; i++) {
    const key = String.fromCharCode(97 + (i % 26));
    const started = performance.now();
    await new Promise<void>((resolve) => {
      waiting = (text) => {
        if (text.includes(key)) resolve();
      };
      send(key);
    });
    times.push(performance.now() - started);
  }
  return times;
}

async function viaBox(box: BenchBox, n: number): Promise<number[]> {
  const spawned = await box.api('POST', '/v1/agents', { name: 'echoer', command: '/bin/sh', args: ECHOER, tty: true });
  const id = (spawned.json['agent'] as { id: string }).id;
  const socket = new WebSocket(`${box.apiUrl.replace(/^http/, 'ws')}/v1/agents/${id}/terminal`, { headers: { authorization: `Bearer ${box.key}` } });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  // Let stty run before the first key.
  await new Promise((r) => setTimeout(r, 300));
  const times = await roundTrips(
    (key) => socket.send(Buffer.from(key), { binary: true }),
    (listener) => socket.on('message', (m: Buffer, binary) => binary && listener(m.toString())),
    n,
  );
  socket.close();
  await box.api('DELETE', `/v1/agents/${id}?graceMs=200`);
  return times;
}

async function viaNodePty(n: number): Promise<number[]> {
  const term = pty.spawn('/bin/sh', ECHOER, { cols: 120, rows: 40 });
  await new Promise((r) => setTimeout(r, 300));
  const times = await roundTrips(
    (key) => term.write(key),
    (listener) => term.onData(listener),
    n,
  );
  term.kill();
  return times;
}

/** Time from opening a viewer to its first frame (the screen), with the longest event-loop stall meanwhile. */
async function lateAttach(box: BenchBox): Promise<{ first: number[]; stall: number; bytes: number }> {
  const lines =
    'i=0; while [ $i -lt 12000 ]; do echo "line $i of the scrollback, long enough to look like build output ........"; i=$((i+1)); done; echo done-printing; exec sleep 600';
  const spawned = await box.api('POST', '/v1/agents', { name: 'printer', command: '/bin/sh', args: ['-c', lines], tty: true });
  const id = (spawned.json['agent'] as { id: string }).id;
  for (let i = 0; ; i++) {
    const out = await box.api('GET', `/v1/agents/${id}/output?after=0`);
    if (JSON.stringify(out.json).includes('done-printing')) break;
    if (i > 600) throw new Error('terminal bench: the printer did not finish within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  // The emulator may still be parsing: one attach first, not counted.
  const first: number[] = [];
  let bytes = 0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  for (let i = 0; i <= ATTACHES; i++) {
    if (i === 1) delay.enable();
    const started = performance.now();
    const socket = new WebSocket(`${box.apiUrl.replace(/^http/, 'ws')}/v1/agents/${id}/terminal`, { headers: { authorization: `Bearer ${box.key}` } });
    const screen = await new Promise<Buffer>((resolve, reject) => socket.once('message', (m: Buffer) => resolve(m)).once('error', reject));
    if (i > 0) first.push(performance.now() - started);
    bytes = screen.length;
    socket.close();
  }
  delay.disable();
  await box.api('DELETE', `/v1/agents/${id}?graceMs=200`);
  return { first, stall: delay.max / 1e6, bytes };
}

export async function runTerminalBench(): Promise<string> {
  const uiRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui');
  const box = await startBenchBox(uiRoot);
  try {
    const mode = ((await box.api('GET', '/health')).json['sandbox'] as { namespaces?: { active?: boolean } }).namespaces?.active
      ? 'bubblewrap + launcher'
      : 'launcher';
    // Interleaved in rounds, so load from elsewhere falls on both alike.
    const boxTimes: number[] = [];
    const rawTimes: number[] = [];
    const round = Math.max(1, Math.floor(KEYS / 4));
    for (let done = 0; done < KEYS; done += round) {
      rawTimes.push(...(await viaNodePty(round)));
      boxTimes.push(...(await viaBox(box, round)));
    }
    const attach = await lateAttach(box);
    const row = (label: string, t: number[]) => [label, String(t.length), ms(median(t)), ms(quantile(t, 0.99)), ms(Math.max(...t))];
    return [
      `Keystroke → echo (the agent echoes in raw mode), ${KEYS} keys each, interleaved; the box's agent: ${mode}`,
      table(
        ['path', 'keys', 'p50', 'p99', 'max'],
        [row('raw node-pty shell, same process', rawTimes), row('box: WebSocket → sandboxed PTY → WebSocket', boxTimes)],
      ),
      '',
      `Late attach to a tty agent with 12,000 lines written (10,000 kept): ${ATTACHES} viewers, one after another`,
      table(
        ['first screen', 'p50', 'p99', 'max', 'screen bytes', 'longest event-loop stall'],
        [['', ms(median(attach.first)), ms(quantile(attach.first, 0.99)), ms(Math.max(...attach.first)), String(attach.bytes), ms(attach.stall)]],
      ),
    ].join('\n');
  } finally {
    await box.close();
  }
}
