// The scope of a decision: its written form (`once`, `agent`, `until=<time>`), and the grants an `agent` or `until` decision leaves for later asks.
import { ApiError } from '../errors.js';
import type { ApprovalRequest, Scope } from './approval-request.js';

/** The longest an `until` scope may reach: a standing grant beyond a day should be a rule in the manifest. */
export const MAX_UNTIL_MS = 24 * 3600 * 1000;

/** Parse `once`, `agent` or `until=<ISO time>` (a time in the future, at most a day ahead of `now`). */
export function parseScope(text: string, now: number): Scope {
  if (text === 'once' || text === 'agent') return { kind: text };
  const m = /^until=(.{1,64})$/.exec(text);
  if (!m) throw new ApiError('ABX_ERR_VALIDATION', `scope ${JSON.stringify(text.slice(0, 80))} is not once, agent or until=<ISO time>`);
  const until = Date.parse(m[1]!);
  if (Number.isNaN(until))
    throw new ApiError('ABX_ERR_VALIDATION', `scope until=${m[1]!.slice(0, 64)}: not a time (write an ISO 8601 time, 2025-01-31T18:00:00Z)`);
  if (until <= now) throw new ApiError('ABX_ERR_VALIDATION', `scope until=${m[1]}: that time has passed`);
  if (until - now > MAX_UNTIL_MS)
    throw new ApiError('ABX_ERR_VALIDATION', `scope until=${m[1]}: more than 24 hours ahead; a standing permission belongs in [policy]`);
  return { kind: 'until', until };
}

/** The written form of a scope, as signed and recorded (`until=` with the time in ISO form, milliseconds dropped). */
export function scopeText(scope: Scope): string {
  return scope.kind === 'until' ? `until=${new Date(scope.until).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : scope.kind;
}

/**
 * What an `agent` or `until` decision covers: later asks under the same policy version, decided by
 * the same rule (or the default), of the same kind of action, by an agent of the same name (an
 * operator's actions: the same rule with no agent). The arguments may differ: that is the point
 * of a scope wider than `once`. `agent` lasts until the API restarts; `until` until its time.
 */
export function grantKey(request: Pick<ApprovalRequest, 'policy' | 'rule' | 'action' | 'agent'>): string {
  return JSON.stringify([request.policy, request.rule?.index ?? 'default', request.action, request.agent]);
}

/** One remembered decision. */
export interface Grant {
  approved: boolean;
  /** Epoch ms; Infinity for `agent`. */
  until: number;
  request: string;
  scope: string;
  by: string;
}

/** The grants left by `agent` and `until` decisions, bounded (the oldest goes first). */
export class Grants {
  readonly #grants = new Map<string, Grant>();
  constructor(private readonly max = 1_000) {}

  remember(key: string, grant: Grant): void {
    this.#grants.delete(key);
    this.#grants.set(key, grant);
    if (this.#grants.size > this.max) this.#grants.delete(this.#grants.keys().next().value!);
  }

  /** The grant in force for `key` at `now`, if any (a lapsed one is forgotten). */
  find(key: string, now: number): Grant | undefined {
    const grant = this.#grants.get(key);
    if (grant && grant.until <= now) this.#grants.delete(key);
    return grant && grant.until > now ? grant : undefined;
  }
}
