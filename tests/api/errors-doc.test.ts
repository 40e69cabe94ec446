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
