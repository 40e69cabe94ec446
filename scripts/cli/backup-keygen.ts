// `agentbox backup keygen`: a new age identity for sealing backups' secrets to a recipient key, written to a new 0600 file;
// its recipient (public) key printed, to give to `agentbox backup --recipient` on the machines that make backups.
import { openSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { newIdentity } from '../../management-api/src/backup/secrets-age.js';
import { UsageError, UserError } from './cli-errors.js';

export const usage = `Usage: agentbox backup keygen --out FILE [--json]

Make a new age identity (X25519) and write it to FILE, a new file (mode 0600), in the format
age-keygen writes: a backup sealed to its recipient key opens with \`agentbox restore
--identity-file FILE\` (or age -d -i FILE). Print the recipient key: give it to
\`agentbox backup --with-secrets --recipient KEY\` where backups are made; the identity need not be there.

Options:
  --out FILE  where to write the identity (refused if it exists)
  --json      print {identityFile, recipient}
  -h, --help  show this help

Exit codes: 0 written, 1 FILE could not be written, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { out: { type: 'string' }, json: { type: 'boolean' } } });
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}" (the identity file is --out FILE)`);
  if (!values.out) throw new UsageError('--out FILE (where to write the new identity) is required');
  const file = path.resolve(values.out);
  const { identity, recipient } = await newIdentity();
  let fd: number;
  try {
    // O_EXCL: never over an identity that may already seal backups.
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(
      `cannot write ${file}: ${code === 'EEXIST' ? 'it exists (an identity is never overwritten; choose another --out)' : (err as Error).message}`,
      1,
    );
  }
  try {
    writeSync(fd, `# created: ${new Date().toISOString()}\n# public key: ${recipient}\n${identity}\n`);
  } finally {
    closeSync(fd);
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ identityFile: file, recipient })}\n`);
  else {
    process.stdout.write(`${recipient}\n`);
    process.stderr.write(`agentbox backup keygen: wrote the identity to ${file} (0600); its recipient key is above\n`);
  }
  return 0;
}
