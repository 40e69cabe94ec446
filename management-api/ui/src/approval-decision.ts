// An operator's decision on an approval request from the page: unsigned through the session, or signed in the browser by a NIP-07 signer as a kind-4751 statement.
import { ApiProblem, call, type NostrSigner } from './api.js';
import type { ApprovalRequest } from './types.js';

/** The kind of a signed decision (server: management-api/src/approvals/signed-decision.ts DECISION_EVENT_KIND). */
export const DECISION_EVENT_KIND = 4751;

/** What the operator chose. */
export interface DecisionChoice {
  decision: 'approve' | 'deny';
  reason: string;
  /** `once`, `agent` or `until=<ISO time>`. */
  scope: string;
}

/**
 * The scope as the box writes it (`until=` with the time in ISO form, milliseconds dropped): a
 * signed statement is checked against that text, so the page signs the same.
 */
export function writtenScope(scope: string): string {
  if (!scope.startsWith('until=')) return scope;
  const at = Date.parse(scope.slice(6));
  return Number.isNaN(at) ? scope : `until=${new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
}

/** The statement the box verifies, in its field order: {request, digest, policy, decision, scope, expires}. */
export function statementContent(request: Pick<ApprovalRequest, 'id' | 'digest' | 'policy' | 'expires'>, choice: DecisionChoice): string {
  return JSON.stringify({
    request: request.id,
    digest: request.digest,
    policy: request.policy,
    decision: choice.decision,
    scope: writtenScope(choice.scope),
    expires: Math.floor(Date.parse(request.expires) / 1000),
  });
}

/**
 * POST /v1/approvals/{id} through the session (Origin and CSRF token, as every mutation). With a
 * signer, the statement is signed first and sent as `signed`; the digest the page showed is sent
 * either way, so a request that changed meanwhile is refused rather than decided blind.
 */
export async function decide(request: ApprovalRequest, choice: DecisionChoice, signer?: NostrSigner): Promise<ApprovalRequest> {
  const body: Record<string, unknown> = { decision: choice.decision, reason: choice.reason, scope: choice.scope, digest: request.digest };
  if (signer) {
    try {
      body['signed'] = await signer.signEvent({
        kind: DECISION_EVENT_KIND,
        created_at: Math.floor(Date.now() / 1000),
        tags: [],
        content: statementContent(request, choice),
      });
    } catch (err) {
      throw new ApiProblem(0, 'SIGNER', `The Nostr signer did not sign the decision: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const answer = await call<{ approval: ApprovalRequest }>('POST', `/v1/approvals/${encodeURIComponent(request.id)}`, body);
  return answer.approval;
}
