// Runs the real relay programme (config/bin/agentbox-relay) on a box root of its own, and talks to
// it as any Nostr client does: nostr-tools' Relay over ws, events signed with nostr-tools.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { finalizeEvent, generateSecretKey, getPublicKey, type Event } from 'nostr-tools/pure';
import { repoRoot } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { runtimePaths, type RuntimePaths } from '../../../management-api/src/runtime-paths.js';
import { boxFacts } from '../../../management-api/src/box-facts.js';

useWebSocketImplementation(WebSocket);

/** A relay programme that was started (it may have exited). */
export interface RelayRun {
  paths: RuntimePaths;
  proc: ChildProcess;
  /** stdout and stderr, as printed so far. */
  output(): string;
  exit: Promise<number | null>;
  /** Resolves once the programme logs that it listens (or rejects when it exits first). */
  listening: Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** A manifest with every adapter off and the given [sovereign_mesh.relay] lines. */
export function relayManifest(relayLines: string, meshLines = ''): string {
  return `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\ncritical = []\n\n[sovereign_mesh]\nenabled = true\n${meshLines}\n[sovereign_mesh.relay]\nenabled = true\n${relayLines}\n`;
}

/** A box root with `manifest` as its manifest file (removed by `cleanup`). */
export function relayRoot(manifest: string): { root: string; paths: RuntimePaths; cleanup(): void } {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-relay-box-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  mkdirSync(path.dirname(paths.manifestFile), { recursive: true });
  writeFileSync(paths.manifestFile, manifest);
  return { root, paths, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Start the relay programme on `root` (its manifest file must exist). */
export function startRelayProgramme(root: string): RelayRun {
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  const command = path.join(repoRoot, 'config/bin', String(boxFacts.programs.box.relay.argv[0]).replace('@bin@/', ''));
  const proc = spawn(command, [], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', AGENTBOX_ROOT: root }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const listening = new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (/"event":"RelayListening"/.test(out)) resolve();
    };
    proc.stdout!.on('data', check);
    void exit.then((code) => reject(new Error(`the relay programme exited (${code}) before listening:\n${out}`)));
  });
  listening.catch(() => undefined);
  return {
    paths,
    proc,
    output: () => out,
    exit,
    listening,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exit;
    },
  };
}

/** A signing key of a test author. */
export interface Author {
  secret: Uint8Array;
  pubkey: string;
}

/** A fresh author. */
export function author(): Author {
  const secret = generateSecretKey();
  return { secret, pubkey: getPublicKey(secret) };
}

/** A signed event of `kind` by `who`. */
export function signed(who: Author, kind = 1, content = `note ${Math.random()}`): Event {
  return finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), tags: [], content }, who.secret);
}

/** Publish `event` to `url`: `{ok: true}` or `{ok: false, message}` from the relay's OK. */
export async function publish(url: string, event: Event): Promise<{ ok: boolean; message: string }> {
  const relay = await Relay.connect(url);
  try {
    const message = await relay.publish(event);
    return { ok: true, message };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  } finally {
    relay.close();
  }
}

/** The events `url` returns for `ids` (REQ until EOSE). */
export async function query(url: string, ids: string[]): Promise<Event[]> {
  const relay = await Relay.connect(url);
  try {
    const events: Event[] = [];
    await new Promise<void>((resolve) => {
      const sub = relay.subscribe([{ ids }], {
        onevent: (e) => void events.push(e),
        oneose: () => {
          sub.close();
          resolve();
        },
      });
    });
    return events;
  } finally {
    relay.close();
  }
}

/** Wait until the programme's output matches `pattern`. */
export function waitForOutput(run: RelayRun, pattern: RegExp): Promise<true> {
  return waitFor(`relay output ${pattern}`, () => pattern.test(run.output()) || undefined, 15_000) as Promise<true>;
}
