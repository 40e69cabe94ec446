// The one secrets reader: precedence (file, then variable), file checks, newline and shape rules, messages without the value.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_SECRET_BYTES, readSecret, type ReadSecretOptions } from '../../../management-api/src/secrets/read-secret.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-read-secret-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A file holding `content` with `mode`. */
function secretFile(name: string, content: string | Buffer, mode = 0o600): string {
  const file = path.join(dir, name);
  writeFileSync(file, content, { mode });
  chmodSync(file, mode);
  return file;
}

/** Options for `integrations.beads`, with the variable and file given (empty = unused). */
function options(over: {
  name?: string;
  values?: Record<string, string>;
  file?: string;
  shape?: ReadSecretOptions['shape'];
  openFile?: 'warn' | 'refuse';
  warnings?: unknown[];
}): ReadSecretOptions {
  return {
    env: { key: 'integrations.beads.token_env', name: over.name ?? '', values: over.values ?? {} },
    file: { key: 'integrations.beads.token_file', path: over.file ?? '' },
    shape: over.shape ?? 'token',
    ...(over.openFile ? { openFile: over.openFile } : {}),
    openEvent: 'IntegrationTokenFileOpen',
    logger: { warn: (fields: unknown) => over.warnings?.push(fields) } as ReadSecretOptions['logger'],
  };
}

t.test('neither source named: undefined', async (t) => {
  t.equal(await readSecret(options({})), undefined);
});

t.test('precedence: the file wins over the variable', async (t) => {
  const file = secretFile('both', 'from-the-file\n');
  t.equal(await readSecret(options({ name: 'TOKEN', values: { TOKEN: 'from-the-variable' }, file })), 'from-the-file');
  t.equal(await readSecret(options({ name: 'TOKEN', values: { TOKEN: 'from-the-variable' } })), 'from-the-variable', 'the variable when no file is named');
});

t.test('a variable: one trailing newline stripped; unset, empty or not one token refused, naming the key and the variable only', async (t) => {
  t.equal(await readSecret(options({ name: 'TOKEN', values: { TOKEN: 'abc\n' } })), 'abc');
  await t.rejects(readSecret(options({ name: 'UNSET' })), {
    name: 'SecretSourceError',
    message: 'integrations.beads.token_env names UNSET, which is not set or empty',
  });
  await t.rejects(readSecret(options({ name: 'TOKEN', values: { TOKEN: '' } })), /TOKEN, which is not set or empty/);
  await t.rejects(readSecret(options({ name: 'TOKEN', values: { TOKEN: '\n' } })), /names TOKEN, whose value is empty/);
  const err = await readSecret(options({ name: 'TOKEN', values: { TOKEN: 'secret-part other-part' } })).catch((e: Error) => e);
  t.match(err, { message: /names TOKEN, whose value does not hold one token on one line/ });
  t.notMatch((err as Error).message, /secret-part/, 'the value never appears in the message');
});

t.test('a file: one trailing newline (LF or CRLF) stripped, and only one', async (t) => {
  t.equal(await readSecret(options({ file: secretFile('lf', 'tok-1\n') })), 'tok-1');
  t.equal(await readSecret(options({ file: secretFile('crlf', 'tok-2\r\n') })), 'tok-2');
  t.equal(await readSecret(options({ file: secretFile('bare', 'tok-3') })), 'tok-3');
  await t.rejects(readSecret(options({ file: secretFile('two', 'tok-4\n\n') })), /token_file .*two does not hold one token on one line/);
  await t.rejects(readSecret(options({ file: secretFile('empty', '') })), /token_file .*empty is empty/);
  await t.rejects(readSecret(options({ file: secretFile('newline-only', '\n') })), /newline-only is empty/);
});

t.test('shapes: a token has no whitespace; a line may have spaces but not a second line', async (t) => {
  const conninfo = secretFile('conninfo', 'host=db port=5432 dbname=memory\n');
  await t.rejects(readSecret(options({ file: conninfo })), /does not hold one token on one line/);
  t.equal(await readSecret(options({ file: conninfo, shape: 'line' })), 'host=db port=5432 dbname=memory');
  await t.rejects(readSecret(options({ file: secretFile('two-lines', 'postgres://a\npostgres://b\n'), shape: 'line' })), /two-lines does not hold one line/);
  await t.rejects(readSecret(options({ file: secretFile('tab', 'a\tb') })), /does not hold one token/);
});

t.test('only a regular file: a missing file, a directory and a FIFO are refused; a link to a regular file is followed', async (t) => {
  await t.rejects(readSecret(options({ file: path.join(dir, 'absent') })), {
    name: 'SecretSourceError',
    message: `integrations.beads.token_file ${path.join(dir, 'absent')} cannot be read: ENOENT`,
  });
  const sub = path.join(dir, 'a-directory');
  mkdirSync(sub);
  await t.rejects(readSecret(options({ file: sub })), /a-directory is not a regular file/);
  const fifo = path.join(dir, 'a-fifo');
  execFileSync('mkfifo', [fifo]);
  await t.rejects(readSecret(options({ file: fifo })), /a-fifo is not a regular file/, 'refused at once, not blocked waiting for a writer');
  const target = secretFile('target', 'linked-token\n');
  symlinkSync(target, path.join(dir, 'link'));
  t.equal(await readSecret(options({ file: path.join(dir, 'link') })), 'linked-token');
});

t.test('a file readable by group or others: used and warned about, or refused', async (t) => {
  const open = secretFile('open', 'open-token\n', 0o644);
  const warnings: unknown[] = [];
  t.equal(await readSecret(options({ file: open, warnings })), 'open-token');
  t.same(warnings, [{ event: 'IntegrationTokenFileOpen', key: 'integrations.beads.token_file', file: open, mode: '0644' }]);
  await t.rejects(readSecret(options({ file: open, openFile: 'refuse' })), /open is readable by group or others \(mode 0644\); make it 0600/);
  const quiet: unknown[] = [];
  await readSecret(options({ file: secretFile('closed', 'x\n', 0o400), warnings: quiet }));
  t.same(quiet, [], 'a 0400 file is fine');
});

t.test('a file larger than MAX_SECRET_BYTES is refused', async (t) => {
  t.equal(await readSecret(options({ file: secretFile('at-limit', Buffer.alloc(MAX_SECRET_BYTES, 'a')) })), 'a'.repeat(MAX_SECRET_BYTES));
  await t.rejects(readSecret(options({ file: secretFile('too-big', Buffer.alloc(MAX_SECRET_BYTES + 1, 'a')) })), /too-big is larger than 65536 bytes/);
});
