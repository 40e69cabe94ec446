// `agentbox approve` and `agentbox deny`: one decision on a pending request, unsigned with the box's API key or signed with an operator key from a file.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { decode } from 'nostr-tools/nip19';
import { finalizeEvent } from 'nostr-tools/pure';
import { getFromBox, resolveTarget, targetHelp, targetOptions, type BoxTarget } from './box-target.js';
import { UsageError, UserError } from './cli-errors.js';
import { idSegment } from './url-segments.js';
import { boxFetch } from './box-fetch.js';

/** The --help of `approve` (with a scope) or `deny`. */
export function decideUsage(decision: 'approve' | 'deny'): string {
  return `Usage: agentbox ${decision} ID [--reason TEXT]${decision === 'approve' ? ' [--scope once|agent|until=TIME]' : ''} [--sign-key-file FILE] [--url URL] [--manifest FILE] [--root DIR] [--json]

${decision === 'approve' ? 'Approve' : 'Deny'} the pending approval request ID (see \`agentbox approvals\`). Without
--sign-key-file the decision is made with the box's API key and recorded as unsigned; with it, it
is a Nostr event (kind 4751) signed by that operator key, which must be in mesh.operator_pubkeys.

Options:
  --reason TEXT         why (recorded, and told to the agent on a deny)
  --scope S             once (default), agent (later asks of the same rule by the same agent) or
                        until=<ISO time> (the same, until then; at most 24 h)
  --sign-key-file FILE  a file holding an operator's secret key (64 hex characters or nsec)
${targetHelp}
  -h, --help            show this help

Exit codes: 0 decided, 1 refused or unreachable, 2 usage.`;
}

/** Run a decision. */
export async function runDecision(decision: 'approve' | 'deny', args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...targetOptions, reason: { type: 'string' }, scope: { type: 'string' }, 'sign-key-file': { type: 'string' } },
  });
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError(`name one approval request: agentbox ${decision} ID`);
  if (decision === 'deny' && values.scope !== undefined) throw new UsageError('--scope applies to approve only');
  const scope = values.scope ?? 'once';
  const target = await resolveTarget(values);
  const body: Record<string, unknown> = { decision, reason: values.reason ?? '', scope };
  if (values['sign-key-file']) {
    const secret = await secretKey(values['sign-key-file']);
    const { status, body: got } = await getFromBox(target, `/v1/approvals/${idSegment(id, 'an approval id')}`);
    if (status !== 200) throw new UserError(`${target.url}/v1/approvals/${id} answered ${status}: ${(got as { message?: string }).message ?? ''}`, 1);
    const a = (got as { approval: { id: string; digest: string; policy: string; expires: string } }).approval;
    // The scope as the box writes it (until= with the time in ISO form): what the box checks the statement against.
    const stated = scope.startsWith('until=') ? `until=${new Date(Date.parse(scope.slice(6))).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : scope;
    const content = JSON.stringify({
      request: a.id,
      digest: a.digest,
      policy: a.policy,
      decision,
      scope: stated,
      expires: Math.floor(Date.parse(a.expires) / 1000),
    });
    body['signed'] = finalizeEvent({ kind: 4751, created_at: Math.floor(Date.now() / 1000), tags: [], content }, secret);
    body['digest'] = a.digest;
  }
  const res = await post(target, `/v1/approvals/${idSegment(id, 'an approval id')}`, body);
  if (res.status !== 200)
    throw new UserError(
      `${decision} ${id} refused (${res.status}): ${(res.body as { error?: string; message?: string }).error ?? ''} ${(res.body as { message?: string }).message ?? ''}`.trim(),
      1,
    );
  const approval = (res.body as { approval: { state: string; decision?: { scope?: string; by?: { signed?: boolean } } } }).approval;
  if (values.json) process.stdout.write(`${JSON.stringify(approval, null, 2)}\n`);
  else
    process.stdout.write(`${id}: ${approval.state} (scope ${approval.decision?.scope ?? 'once'}, ${approval.decision?.by?.signed ? 'signed' : 'unsigned'})\n`);
  return 0;
}

async function secretKey(file: string): Promise<Uint8Array> {
  const text = (
    await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UserError(`cannot read --sign-key-file ${file}: ${err.code ?? err.message}`, 2);
    })
  ).trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return Uint8Array.from(Buffer.from(text, 'hex'));
  if (text.startsWith('nsec1')) {
    try {
      const d = decode(text as `nsec1${string}`);
      if (d.type === 'nsec') return d.data;
    } catch {
      // reported below
    }
  }
  throw new UserError(`--sign-key-file ${file} holds neither 64 hex characters nor an nsec`, 2);
}

async function post(target: BoxTarget, pathname: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await boxFetch(target.url + pathname, target.key, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}
