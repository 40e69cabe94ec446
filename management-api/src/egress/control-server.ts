// The egress proxy's side of the control channel: registers and revokes credentials, swaps the allowlist, streams decisions to the API.
//
// The API that syncs is the one whose agents hold credentials: its sync replaces the whole set,
// and when its connection closes (the API stopped or crashed, and its agents with it) the set is
// emptied, so no credential outlives the API that issued it.
import { timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { Allowlist, type EgressPolicy } from './allowlist.js';
import { entryProblem } from '../grammar/egress-entry.js';
import type { CredentialStore } from './credential-store.js';
import { lineReader, type ControlAsk, type ControlReply, type ControlRequest, type PolicySource } from './control-protocol.js';
import type { EgressDecision } from './proxy.js';
import type { EgressAction, PolicyDecision } from '../policy/policy-types.js';

/** An ask's answer. */
type Answer = { approved: boolean; reason: string };

/** Asks held at once; more are denied (the API's queue has its own, smaller bound). */
const ASKS_MAX = 10_000;

/** Decisions kept while no API is subscribed; the oldest go first. */
const PENDING_MAX = 1_000;

/** What the control server acts on. */
export interface ControlServerOptions {
  socketPath: string;
  /** The API key file; a connection must present its contents first. */
  apiKeyFile: string;
  credentials: CredentialStore;
  /** The port the proxy listens on (reported in every reply). */
  port: () => number;
  getPolicy: () => Allowlist;
  /** Where the list in force came from. */
  getSource: () => PolicySource;
  /** Put a runtime list in force. */
  setPolicy: (allowlist: Allowlist) => void;
  /** Put the manifest's list back in force. */
  resetPolicy: () => void;
  /** Told when the syncing API's connection closed and the credentials it had registered were dropped. */
  onControllerGone?: (dropped: number) => void;
  /** Told when decisions were dropped for want of a subscriber. */
  onDropped?: (count: number) => void;
}

/** The running control server. */
export interface ControlServer {
  /** Send a decision to every subscriber (kept, bounded, while there is none). */
  publish(decision: EgressDecision): void;
  /**
   * Hand an ask to the subscribed API and wait for its answer: denied at once when no API is
   * subscribed, when the last subscriber goes, or after `timeoutMs` without an answer.
   */
  ask(agent: string | null, decision: PolicyDecision, action: EgressAction, timeoutMs: number): Promise<Answer>;
  close(): Promise<void>;
}

/** Listen on `socketPath` (replacing a stale socket), mode 0600. */
export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const subscribers = new Set<net.Socket>();
  const controllers = new Set<net.Socket>();
  const asks = new Map<number, { resolve: (a: Answer) => void; timer: NodeJS.Timeout }>();
  let nextRef = 1;
  const answer = (ref: number, a: Answer): boolean => {
    const held = asks.get(ref);
    if (!held) return false;
    asks.delete(ref);
    clearTimeout(held.timer);
    held.resolve(a);
    return true;
  };
  // With no API subscribed nobody can decide: every held ask is denied.
  const orphaned = (): void => {
    if (subscribers.size > 0) return;
    for (const ref of [...asks.keys()]) answer(ref, { approved: false, reason: 'no approver reachable (the API closed its control connection)' });
  };
  let pending: string[] = [];
  // Every connection, subscribed or not: close must end them all, or server.close() waits on them.
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    serve(socket, options, { subscribers, controllers }, () => flush(), answer, orphaned);
  });
  const flush = (): void => {
    for (const line of pending) for (const s of subscribers) s.write(line);
    pending = [];
  };
  // Stage A creates the run dir in a box; a proxy started on its own (benchmarks) makes it.
  mkdirSync(path.dirname(options.socketPath), { recursive: true });
  rmSync(options.socketPath, { force: true });
  // Created 0600 from the start (umask), so no other user can connect between listen and chmod.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.socketPath, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(options.socketPath, 0o600);
  return {
    publish(decision) {
      const line = `${JSON.stringify({ decision })}\n`;
      if (subscribers.size > 0) for (const s of subscribers) s.write(line);
      else {
        pending.push(line);
        if (pending.length > PENDING_MAX) {
          pending = pending.slice(-PENDING_MAX);
          options.onDropped?.(1);
        }
      }
    },
    ask(agent, decision, action, timeoutMs) {
      if (subscribers.size === 0) return Promise.resolve({ approved: false, reason: 'no approver reachable (no API is connected to the egress proxy)' });
      if (asks.size >= ASKS_MAX) return Promise.resolve({ approved: false, reason: `the egress proxy holds ${ASKS_MAX} asks already` });
      const ref = nextRef++;
      const line = `${JSON.stringify({ ask: { ref, agent, decision, action } } satisfies ControlAsk)}\n`;
      return new Promise<Answer>((resolve) => {
        const timer = setTimeout(() => answer(ref, { approved: false, reason: `no decision within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
        timer.unref();
        asks.set(ref, { resolve, timer });
        for (const s of subscribers) s.write(line);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ref of [...asks.keys()]) answer(ref, { approved: false, reason: 'the egress proxy is stopping' });
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function serve(
  socket: net.Socket,
  options: ControlServerOptions,
  sets: { subscribers: Set<net.Socket>; controllers: Set<net.Socket> },
  flush: () => void,
  answer: (ref: number, a: Answer) => boolean,
  orphaned: () => void,
): void {
  const { subscribers, controllers } = sets;
  let authenticated = false;
  const reply = (r: ControlReply): void => void socket.write(`${JSON.stringify(r)}\n`);
  const ok = (id: number): void => reply({ id, ok: true, port: options.port(), policy: options.getPolicy().policy, source: options.getSource() });
  const fail = (id: number, error: string): void => reply({ id, ok: false, error });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    subscribers.delete(socket);
    orphaned();
    if (!controllers.delete(socket) || controllers.size > 0) return;
    const dropped = options.credentials.size;
    options.credentials.replace([]);
    options.onControllerGone?.(dropped);
  });
  // One request at a time: `hello` reads a file, and the next request must see its outcome.
  let queue = Promise.resolve();
  const handle = async (message: unknown): Promise<void> => {
    const req = message as ControlRequest;
    const id = typeof req?.id === 'number' ? req.id : 0;
    if (!authenticated) {
      if (req?.op !== 'hello' || typeof req.key !== 'string' || !(await keyMatches(options.apiKeyFile, req.key))) {
        fail(id, 'unauthenticated: the first request must be hello with the box API key');
        socket.end();
        return;
      }
      authenticated = true;
      return ok(id);
    }
    try {
      switch (req.op) {
        case 'sync': {
          if (!Array.isArray(req.credentials)) return fail(id, 'sync needs credentials (an array of {agent, hash})');
          const problem = req.policy === null ? undefined : policyProblem(req.policy);
          if (problem) return fail(id, problem);
          options.credentials.replace(req.credentials);
          if (req.policy === null) options.resetPolicy();
          else options.setPolicy(new Allowlist({ allow_domains: [...req.policy.allow_domains], allow_ports: [...req.policy.allow_ports] }));
          controllers.add(socket);
          return ok(id);
        }
        case 'register':
          options.credentials.set(req.agent, req.hash, {
            ...(req.name !== undefined ? { name: req.name } : {}),
            ...(req.autonomy !== undefined ? { autonomy: req.autonomy } : {}),
            ...(req.allowDomains !== undefined ? { allowDomains: req.allowDomains } : {}),
          });
          return ok(id);
        case 'revoke':
          options.credentials.delete(req.agent);
          return ok(id);
        case 'policy-get':
          return ok(id);
        case 'policy-set': {
          const problem = policyProblem(req.policy);
          if (problem) return fail(id, problem);
          options.setPolicy(new Allowlist({ allow_domains: [...req.policy.allow_domains], allow_ports: [...req.policy.allow_ports] }));
          return ok(id);
        }
        case 'subscribe':
          subscribers.add(socket);
          ok(id);
          return flush();
        case 'answer':
          if (typeof req.ref !== 'number' || typeof req.approved !== 'boolean' || typeof req.reason !== 'string')
            return fail(id, 'answer needs ref (a number), approved (a boolean) and reason (a string)');
          // An answer to an ask that timed out or was answered already changes nothing.
          answer(req.ref, { approved: req.approved, reason: req.reason.slice(0, 1000) });
          return ok(id);
        default:
          return fail(id, `unknown op ${JSON.stringify((req as { op?: unknown }).op)}`.slice(0, 200));
      }
    } catch (err) {
      return fail(id, (err as Error).message);
    }
  };
  socket.on(
    'data',
    lineReader(
      (m) => (queue = queue.then(() => handle(m))),
      (error) => {
        fail(0, error);
        socket.destroy();
      },
    ),
  );
}

async function keyMatches(file: string, given: string): Promise<boolean> {
  const key = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (key === '') return false;
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(key), digest(given));
}

/** What is wrong with a policy sent over the channel (the API validated it already; this is the proxy's own guard). */
export function policyProblem(policy: unknown): string | undefined {
  const p = policy as Partial<EgressPolicy> | undefined;
  if (!p || !Array.isArray(p.allow_domains) || !Array.isArray(p.allow_ports)) return 'policy needs allow_domains (strings) and allow_ports (integers)';
  for (const d of p.allow_domains) {
    const problem = typeof d === 'string' ? entryProblem(d) : 'not a string';
    if (problem) return `allow_domains entry ${JSON.stringify(d)}: ${problem}`;
  }
  for (const port of p.allow_ports)
    if (!Number.isInteger(port) || port < 1 || port > 65535) return `allow_ports entry ${JSON.stringify(port)} is not a port 1-65535`;
  return undefined;
}
