// A decision signed by an operator key: a Nostr event of kind 4751 over {request, digest, policy, decision, scope, expires}, checked before it counts.
import { verifyEvent, type Event } from 'nostr-tools/pure';
import { ApiError } from '../errors.js';
import type { ApprovalRequest } from './approval-request.js';

/** The kind of a signed approval decision (a regular event: relays may keep it as evidence). */
export const DECISION_EVENT_KIND = 4751;
/** How far a signed decision's created_at may be from the box's clock. */
export const FRESH_SEC = 300;

/** What the signer states, as the event's content (JSON). */
export interface DecisionStatement {
  request: string;
  digest: string;
  policy: string;
  decision: 'approve' | 'deny';
  scope: string;
  /** The request's expiry, unix seconds: the statement is worth nothing after it. */
  expires: number;
}

/** The statement an operator signs for `request` (the dashboard and the CLI build the same). */
export function statementFor(
  request: Pick<ApprovalRequest, 'id' | 'digest' | 'policy' | 'expires'>,
  decision: 'approve' | 'deny',
  scope: string,
): DecisionStatement {
  return { request: request.id, digest: request.digest, policy: request.policy, decision, scope, expires: Math.floor(Date.parse(request.expires) / 1000) };
}

/** Event ids already used, kept while they could still be fresh: a replay is refused. */
export class UsedEvents {
  readonly #used = new Map<string, number>();

  /** True when `id` was not seen; marks it used until `untilMs`. */
  claim(id: string, now: number, untilMs: number): boolean {
    for (const [k, t] of this.#used) if (t <= now) this.#used.delete(k);
    if (this.#used.has(id)) return false;
    this.#used.set(id, untilMs);
    return true;
  }
}

/**
 * Check `event` as the decision `expected` on `request`: a valid signature, a signer among
 * `approvers`, fresh, not used before, and stating exactly the request's digest, policy version,
 * expiry, the decision and the scope asked for. A digest (or policy) that differs is a decision for
 * a changed request: 409 ABX_ERR_APPROVAL_CHANGED; anything else wrong is 403 ABX_ERR_APPROVAL_SIGNATURE.
 */
export function checkSignedDecision(
  event: unknown,
  request: ApprovalRequest,
  expected: Pick<DecisionStatement, 'decision' | 'scope'>,
  approvers: ReadonlySet<string>,
  used: UsedEvents,
  now: number,
): Event {
  const refuse = (why: string): never => {
    throw new ApiError('ABX_ERR_APPROVAL_SIGNATURE', `the signed decision is refused: ${why}`);
  };
  const e = event as Event;
  if (
    !e ||
    typeof e !== 'object' ||
    typeof e.id !== 'string' ||
    typeof e.sig !== 'string' ||
    typeof e.pubkey !== 'string' ||
    typeof e.content !== 'string' ||
    !Array.isArray(e.tags)
  )
    refuse('not a Nostr event (id, pubkey, created_at, kind, tags, content, sig)');
  if (e.kind !== DECISION_EVENT_KIND) refuse(`kind ${String(e.kind)}, not ${DECISION_EVENT_KIND}`);
  if (!verifyEvent(e)) refuse('its id or signature does not verify');
  if (!approvers.has(e.pubkey)) refuse(`${e.pubkey} is not an operator key of this box (mesh.operator_pubkeys)`);
  let stated: Partial<DecisionStatement>;
  try {
    stated = JSON.parse(e.content) as Partial<DecisionStatement>;
  } catch {
    return refuse('its content is not JSON');
  }
  if (stated.request !== request.id) refuse(`it is for request ${JSON.stringify(stated.request)}, not ${request.id}`);
  if (stated.digest !== request.digest || stated.policy !== request.policy) {
    throw new ApiError(
      'ABX_ERR_APPROVAL_CHANGED',
      `the signed decision is for a changed request: it states digest ${String(stated.digest).slice(0, 80)} under policy ${String(stated.policy).slice(0, 80)}, the request is ${request.digest} under ${request.policy}`,
    );
  }
  const want = statementFor(request, expected.decision, expected.scope);
  if (stated.decision !== want.decision) refuse(`it states ${JSON.stringify(stated.decision)}, the call asks to ${want.decision}`);
  if (stated.scope !== want.scope) refuse(`it states scope ${JSON.stringify(stated.scope)}, the call asks for ${want.scope}`);
  if (stated.expires !== want.expires) refuse(`it states expiry ${String(stated.expires)}, the request expires at ${want.expires}`);
  const nowSec = Math.floor(now / 1000);
  if (typeof e.created_at !== 'number' || Math.abs(e.created_at - nowSec) > FRESH_SEC)
    refuse(`created_at ${String(e.created_at)} is more than ${FRESH_SEC} s from the box's clock`);
  if (!used.claim(e.id, now, now + 2 * FRESH_SEC * 1000)) refuse(`event ${e.id} was used before (a replay)`);
  return e;
}
