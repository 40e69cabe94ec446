// The local terminal joined to an agent's (GET /v1/agents/{id}/terminal): raw mode, keystrokes out, screen in, resizes, the detach keys; the terminal is always restored.
import { constants } from 'node:os';
import WebSocket from 'ws';
import type { AgentRecord } from './agent-api.js';
import type { BoxTarget } from './box-target.js';
import { UserError } from './cli-errors.js';
import { DetachKeys } from './detach-keys.js';

/** How a session ended: the agent exited (its final record), or the user detached and it runs on. */
export type TerminalOutcome = { kind: 'exit'; agent: AgentRecord } | { kind: 'detached' };

/** Signals after which the terminal is restored before this process ends as they would end it. */
const ENDING_SIGNALS = ['SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

/** The local terminal's size, when stdout is one. */
export function localSize(): { cols: number; rows: number } | undefined {
  return process.stdout.isTTY ? { cols: process.stdout.columns, rows: process.stdout.rows } : undefined;
}

/**
 * Attach to agent `id`'s terminal until it exits or the user types the detach keys. With `keys`,
 * stdin is relayed (in raw mode when it is a terminal: Ctrl-C goes to the agent); without, only
 * the screen is shown. The local size is sent on attach and on every SIGWINCH.
 */
export function attachTerminal(target: BoxTarget, id: string, options: { keys: boolean }): Promise<TerminalOutcome> {
  const url = `${target.url.replace(/^http/, 'ws')}/v1/agents/${id}/terminal`;
  const socket = new WebSocket(url, { headers: target.key ? { authorization: `Bearer ${target.key}` } : {} });
  const stdin = process.stdin;
  const raw = options.keys && stdin.isTTY;
  const detachKeys = new DetachKeys();
  let exit: AgentRecord | undefined;
  let detached = false;

  const resize = () => {
    const size = localSize();
    if (size && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'resize', ...size }));
  };
  const onKeys = (data: Buffer) => {
    const { send, detach } = detachKeys.feed(data);
    if (send.length && socket.readyState === WebSocket.OPEN) socket.send(send, { binary: true });
    if (detach) {
      detached = true;
      socket.close(1000, 'detached');
    }
  };
  const restore = () => {
    stdin.off('data', onKeys);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
    process.off('SIGWINCH', resize);
    process.off('exit', restore);
    for (const s of ENDING_SIGNALS) process.off(s, onSignal);
  };
  // A signal from outside (a closed window, kill): the terminal is given back before this process ends.
  function onSignal(signal: NodeJS.Signals): void {
    restore();
    socket.terminate();
    process.exit(128 + (constants.signals[signal] ?? 0));
  }

  return new Promise<TerminalOutcome>((resolve, reject) => {
    socket.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let message = text;
        try {
          const body = JSON.parse(text) as { error?: string; message?: string };
          message = `${body.error ?? ''} ${body.message ?? text}`.trim();
        } catch {
          // Not JSON: the text is the message.
        }
        reject(new UserError(`cannot attach to the terminal of ${id}: ${res.statusCode}: ${message}`, 1));
      });
    });
    socket.on('error', (err) => {
      restore();
      reject(new UserError(`the terminal connection to ${id} failed: ${err.message}`, 1));
    });
    socket.on('open', () => {
      process.once('exit', restore);
      for (const s of ENDING_SIGNALS) process.on(s, onSignal);
      if (raw) stdin.setRawMode(true);
      if (options.keys) {
        stdin.on('data', onKeys);
        stdin.resume();
      }
      process.on('SIGWINCH', resize);
      resize();
    });
    socket.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        process.stdout.write(data);
        return;
      }
      const record = JSON.parse(data.toString('utf8')) as { type?: string; agent?: AgentRecord; message?: string };
      if (record.type === 'exit' && record.agent) exit = record.agent;
      else if (record.type === 'error') process.stderr.write(`\r\nagentbox: the box refused a terminal message: ${record.message ?? ''}\r\n`);
    });
    socket.on('close', (code, reason) => {
      restore();
      if (exit) resolve({ kind: 'exit', agent: exit });
      else if (detached) resolve({ kind: 'detached' });
      else reject(new UserError(`the terminal connection to ${id} closed (${code}${reason.length ? ` ${reason.toString()}` : ''}) before the agent ended`, 1));
    });
  });
}
