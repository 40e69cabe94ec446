// The control channel between the management API and the egress proxy: newline-delimited JSON over a 0600 unix socket under the run dir.
import type { EgressPolicy } from './allowlist.js';
import type { EgressDecision } from './proxy.js';
import type { Autonomy, EgressAction, PolicyDecision } from '../policy/policy-types.js';

/**
 * A request from the API. The first one on a connection must be `hello` with the box API key
 * (read from its 0600 file): the socket is the box user's, and this keeps a process that can
 * open the socket but not read the secrets (a confined agent) from driving the proxy.
 */
export type ControlRequest =
  | { id: number; op: 'hello'; key: string }
  | { id: number; op: 'sync'; credentials: CredentialEntry[]; policy: EgressPolicy | null }
  | { id: number; op: 'register'; agent: string; hash: string; name?: string; autonomy?: Autonomy; allowDomains?: string[] }
  | { id: number; op: 'revoke'; agent: string }
  | { id: number; op: 'policy-get' }
  | { id: number; op: 'policy-set'; policy: EgressPolicy }
  | { id: number; op: 'subscribe' }
  | { id: number; op: 'answer'; ref: number; approved: boolean; reason: string };

/**
 * `sync` is the API's first request after `hello` and `subscribe` on every connection: the
 * credentials of the agents it runs, which replace the proxy's whole set (an API that restarted
 * knows none, so none of a dead agent's survive), and its runtime allowlist, or null to go back
 * to the manifest's (a runtime list lasts until the API restarts).
 */
export interface CredentialEntry {
  agent: string;
  hash: string;
  /** The agent's name and autonomy, for [policy] decisions. */
  name?: string;
  autonomy?: Autonomy;
  /** Egress entries admitted for this agent alone, on top of the box's allowlist. */
  allowDomains?: string[];
}

/** Where the allowlist in force came from: the proxy's manifest, or a change through the API. */
export type PolicySource = 'manifest' | 'runtime';

/** A reply (`id` of its request); `port` is where the proxy listens, `policy` the allowlist in force and `source` its origin. */
export type ControlReply = { id: number; ok: true; port: number; policy: EgressPolicy; source: PolicySource } | { id: number; ok: false; error: string };

/** Pushed to subscribed connections, one per decision. */
export interface ControlDecision {
  decision: EgressDecision;
}

/**
 * Pushed to subscribed connections when [policy] asks about a supervised agent's request: the
 * proxy holds the agent's connection open until the API answers `ref` (op `answer`) with the
 * approvals queue's decision. No subscriber, a closed connection or no answer in time denies.
 */
export interface ControlAsk {
  ask: { ref: number; agent: string | null; decision: PolicyDecision; action: EgressAction };
}

/** Longest line either side accepts; a policy of many entries stays well below it. */
export const MAX_LINE = 1024 * 1024;

/**
 * Split a stream of chunks into lines and hand each parsed JSON value to `onMessage`. A line
 * that is not JSON, or longer than {@link MAX_LINE}, calls `onError` (the caller closes).
 */
export function lineReader(onMessage: (value: unknown) => void, onError: (message: string) => void): (chunk: Buffer) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        onError('a control line is not JSON');
        return;
      }
      onMessage(value);
    }
    if (buffered.length > MAX_LINE) onError(`a control line is longer than ${MAX_LINE} bytes`);
  };
}
