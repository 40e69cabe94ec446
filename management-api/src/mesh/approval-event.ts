// The Nostr form of an approval request, published where agent events are: what waits for a decision, bound to its digest, with no secret in it.
import type { EventTemplate } from 'nostr-tools/pure';
import type { ApprovalRequest } from '../approvals/approval-request.js';
import { LABEL_NAMESPACE, type EventOrigin } from './agent-event.js';

/** The kind of a published approval request (regular range, stored by relays; beside 4750 agent events and 4751 signed decisions). */
export const APPROVAL_REQUEST_EVENT_KIND = 4752;

/**
 * The unsigned event: the agent events' tags (`t`, the `dev.agentbox` label `approval.requested`,
 * `box`, `manifest`), then `["approval",<id>,<digest>]`; content is JSON of the request with its
 * arguments as the audit log keeps them (`subject`: bounded, secret-looking values censored). The
 * rule's reason is left out: it quotes the matched values, which the censored subject already gives.
 */
export function approvalRequestEvent(request: ApprovalRequest, subject: Record<string, unknown>, origin: EventOrigin, at: Date): EventTemplate {
  const type = 'approval.requested';
  return {
    kind: APPROVAL_REQUEST_EVENT_KIND,
    created_at: Math.floor(at.getTime() / 1000),
    tags: [
      ['t', 'agentbox'],
      ['L', LABEL_NAMESPACE],
      ['l', type, LABEL_NAMESPACE],
      ['box', origin.box],
      ['manifest', origin.manifestSha256],
      ['approval', request.id, request.digest],
    ],
    content: JSON.stringify({
      type,
      request: {
        id: request.id,
        digest: request.digest,
        action: request.action,
        agent: request.agent,
        agentId: request.agentId,
        arguments: subject,
        rule: request.rule,
        policy: request.policy,
        created: request.created,
        expires: request.expires,
      },
    }),
  };
}
