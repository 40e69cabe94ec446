// One pending approval request: what would happen, under which rule, how long it waits; Approve and Deny with a reason and a scope, signed by a NIP-07 signer when the page has one.
import { useState } from 'preact/hooks';
import { describe, nostrSigner } from '../api.js';
import { decide, type DecisionChoice } from '../approval-decision.js';
import { ErrorNote, Field } from '../components/common.js';
import { duration, pairs, short } from '../format.js';
import type { ApprovalRequest } from '../types.js';

type ScopeKind = 'once' | 'agent' | 'until';

/** `rule 1 ("push-asks")`, or the policy's default. */
export function ruleText(rule: ApprovalRequest['rule']): string {
  if (!rule) return 'the default';
  return rule.id ? `rule ${rule.index} ("${rule.id}")` : `rule ${rule.index}`;
}

/** A request with its decision form; `now` ticks the time left. */
export function ApprovalCard({ request, now }: { request: ApprovalRequest; now: number }) {
  const signer = nostrSigner();
  const [reason, setReason] = useState('');
  const [scope, setScope] = useState<ScopeKind>('once');
  const [until, setUntil] = useState('');
  // Signing is the default where a signer exists: the decision then stands as evidence on its own.
  const [sign, setSign] = useState(signer !== undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const left = Date.parse(request.expires) - now;

  const submit = async (decision: DecisionChoice['decision']) => {
    setError(undefined);
    let scopeText: string = scope;
    if (scope === 'until') {
      // datetime-local is the browser's local time without a zone; Date reads it as local.
      const at = until ? new Date(until) : undefined;
      if (!at || Number.isNaN(at.getTime())) return setError('Choose the time the decision lasts until.');
      scopeText = `until=${at.toISOString()}`;
    }
    setBusy(true);
    try {
      // The card goes once the topic no longer lists the request; nothing to update here on success.
      await decide(request, { decision, reason, scope: scopeText }, sign ? signer : undefined);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  const label = request.agent ?? 'an operator action';
  return (
    <article class="card approval" aria-labelledby={`h-${request.id}`} data-testid={`approval-${request.id}`}>
      <h3 id={`h-${request.id}`}>
        {request.action} by {label}
      </h3>
      <dl class="facts">
        <dt>Agent</dt>
        <dd data-testid="approval-agent">{request.agent ?? '— (operator)'}</dd>
        <dt>Action</dt>
        <dd data-testid="approval-action">{request.action}</dd>
        <dt>Arguments</dt>
        <dd data-testid="approval-arguments">
          <code>{pairs(request.arguments)}</code>
        </dd>
        <dt>Rule</dt>
        <dd data-testid="approval-rule">
          {ruleText(request.rule)}: {request.reason}
        </dd>
        <dt>Time left</dt>
        <dd data-testid="approval-left">{left > 0 ? duration(left) : 'expiring'}</dd>
        <dt>Digest</dt>
        <dd title={request.digest}>
          <code>{short(request.digest, 20)}</code>
        </dd>
      </dl>
      <div class="approval-form">
        <Field label="Reason (optional)">
          <input type="text" maxLength={1000} value={reason} data-testid="approval-reason" onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <Field label="Scope">
          <select value={scope} data-testid="approval-scope" onChange={(e) => setScope(e.currentTarget.value as ScopeKind)}>
            <option value="once">This request only</option>
            <option value="agent">This agent, same rule, until the API restarts</option>
            <option value="until">This agent, same rule, until a time</option>
          </select>
        </Field>
        {scope === 'until' ? (
          <Field label="Until (at most 24 h)">
            <input type="datetime-local" value={until} data-testid="approval-until" onInput={(e) => setUntil(e.currentTarget.value)} />
          </Field>
        ) : null}
        {signer ? (
          <label class="check">
            <input type="checkbox" checked={sign} data-testid="approval-sign" onChange={(e) => setSign(e.currentTarget.checked)} /> Sign with my Nostr key
          </label>
        ) : null}
        <div class="actions">
          <button
            type="button"
            disabled={busy}
            data-testid="approve"
            aria-label={`Approve ${request.action} by ${label}`}
            onClick={() => void submit('approve')}
          >
            Approve
          </button>
          <button
            type="button"
            class="danger"
            disabled={busy}
            data-testid="deny"
            aria-label={`Deny ${request.action} by ${label}`}
            onClick={() => void submit('deny')}
          >
            Deny
          </button>
        </div>
      </div>
      <ErrorNote error={error} testId="approval-error" />
    </article>
  );
}
