// Drift check: every ABX_ERR_* code in the table is documented in docs/errors.md with its status, and nothing else is.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { errorCodes } from '../../management-api/src/errors.js';

t.test('docs/errors.md and errors.ts list the same codes with the same HTTP statuses', async (t) => {
  const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, number>();
  for (const m of doc.matchAll(/^\| `(ABX_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)) rows.set(m[1]!, Number(m[2]));
  t.ok(rows.size > 0, 'the document has a table');
  for (const [code, { status }] of Object.entries(errorCodes)) t.equal(rows.get(code), status, `${code} documented with ${status}`);
  for (const code of rows.keys()) t.ok(code in errorCodes, `${code} exists in errors.ts`);
  const mentioned = new Set(doc.match(/ABX_ERR_[A-Z_]+/g));
  for (const code of mentioned) t.ok(code in errorCodes, `${code} mentioned in the text exists`);
});

t.test('statuses are HTTP error statuses and descriptions are present', async (t) => {
  for (const [code, { status, description }] of Object.entries(errorCodes)) {
    t.ok(status >= 400 && status < 600, `${code} status`);
    t.ok(description.length > 10, `${code} description`);
  }
});

t.test('adapter errors carry documented codes and their statuses', async (t) => {
  const {
    AdapterConflictError,
    AdapterDegradedError,
    AdapterInputError,
    AdapterNotFoundError,
    AdapterOffError,
    AdapterPreconditionError,
    AdapterTimeoutError,
    AdapterUnavailableError,
    FatalAdapterError,
  } = await import('../../management-api/src/adapter-errors.js');
  const cases: Array<[Error & { code?: string; statusCode?: number }, string, number]> = [
    [new AdapterOffError('pods', 'put'), 'ABX_ERR_ADAPTER_OFF', 503],
    [new AdapterDegradedError('memory', 'connect-failed: x'), 'ABX_ERR_ADAPTER_DEGRADED', 503],
    [new AdapterUnavailableError('events', 'socket closed', { cause: new Error('EPIPE') }), 'ABX_ERR_ADAPTER_UNAVAILABLE', 503],
    [new AdapterTimeoutError('beads', 'claim', 250), 'ABX_ERR_ADAPTER_TIMEOUT', 504],
    [new AdapterNotFoundError('bead b-1'), 'ABX_ERR_NOT_FOUND', 404],
    [new AdapterConflictError('bead b-1 is claimed by agent-2'), 'ABX_ERR_CONFLICT', 409],
    [new AdapterPreconditionError('ETag "a" does not match'), 'ABX_ERR_PRECONDITION_FAILED', 412],
    [new AdapterInputError('vector has 3 dimensions, expected 384'), 'ABX_ERR_VALIDATION', 400],
  ];
  for (const [err, code, status] of cases) {
    t.equal(err.code, code, `${err.name} → ${code}`);
    t.equal(err.statusCode, status);
    t.ok(code in errorCodes);
    t.ok(err.message.length > 5);
  }
  t.match(new AdapterUnavailableError('events', 'x', { cause: new Error('EPIPE') }).cause, { message: 'EPIPE' });
  t.match(new FatalAdapterError('orchestrator', 'connect-timeout'), {
    slot: 'orchestrator',
    message: 'critical adapter slot "orchestrator" failed to connect: connect-timeout',
  });
});
