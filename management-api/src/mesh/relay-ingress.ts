// The embedded relay's ingress guard: which events it stores, by the manifest's ingress_policy and
// allowed_kinds; a refused event gets NIP-01's `OK false "blocked: …"` naming the setting.
import type { BeforeHandleEventPlugin, BeforeHandleEventResult, Event } from '@nostr-relay/common';
import { verifyEvent } from 'nostr-tools/pure';
import type { RelayConfig } from './relay-config.js';

/** What the guard needs: the policy and lists of the manifest, and the box's own public key. */
export interface IngressRules extends Pick<RelayConfig, 'policy' | 'allowedPubkeys' | 'allowedKinds'> {
  /** The box's identity (hex): always accepted under `allowlist`, so the box can publish to its own relay. */
  boxPubkey: string;
}

const ACCEPT: BeforeHandleEventResult = { canHandle: true };
const block = (reason: string): BeforeHandleEventResult => ({ canHandle: false, message: `blocked: ${reason}` });

/**
 * Decide whether the relay may handle `event`. The relay engine itself then checks the id and
 * signature of every event it handles, under every policy (`invalid: …` when they are wrong):
 * `signed-only` checks them first so that a forged event is refused in the policy's name.
 */
export function ingressVerdict(event: Event, rules: IngressRules): BeforeHandleEventResult {
  if (rules.allowedKinds.length > 0 && !rules.allowedKinds.includes(event.kind)) {
    return block(`kind ${event.kind} is not in sovereign_mesh.relay.allowed_kinds (${rules.allowedKinds.join(', ')})`);
  }
  switch (rules.policy) {
    case 'allowlist':
      if (event.pubkey === rules.boxPubkey || rules.allowedPubkeys.includes(event.pubkey)) return ACCEPT;
      return block(`ingress_policy "allowlist" accepts only the box's own key and sovereign_mesh.relay.allowed_pubkeys; ${event.pubkey} is not on the list`);
    case 'signed-only':
      // The fields alone: verifyEvent caches its verdict under a symbol on the object, which a
      // spread would copy (an event that was signed or verified in this process, then altered).
      if (
        verifyEvent({
          id: event.id,
          pubkey: event.pubkey,
          created_at: event.created_at,
          kind: event.kind,
          tags: event.tags,
          content: event.content,
          sig: event.sig,
        })
      )
        return ACCEPT;
      return block('ingress_policy "signed-only" accepts only validly signed events; this event\'s id or signature is wrong');
    case 'open':
      return ACCEPT;
  }
}

/** The guard as a @nostr-relay plugin; `onRefused` is told of each refusal (for the log). */
export function ingressGuard(rules: IngressRules, onRefused: (event: Event, message: string) => void = () => undefined): BeforeHandleEventPlugin {
  return {
    beforeHandleEvent(event) {
      const verdict = ingressVerdict(event, rules);
      if (!verdict.canHandle) onRefused(event, verdict.message ?? 'blocked');
      return verdict;
    },
  };
}
