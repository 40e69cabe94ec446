// `agentbox backup verify`: check a backup without restoring it.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { verifyBackup } from '../../management-api/src/backup/verify-backup.js';
import { UsageError } from './cli-errors.js';
import { signatureOptions } from './backup-signer.js';

export const usage = `Usage: agentbox backup verify DIR|FILE.tar [--signed-by KEY [--not-before TIME]] [--json]

Check the backup in DIR (or the tar FILE.tar, unpacked into a temporary directory) without restoring it: its index (backup.json) is there and readable, every
file it names has its size and SHA-256, no other file is there, the event log's hash chain holds
from its first line and its entries hash to the root of the signed checkpoint it ends at, and
every snapshot reads back whole: every chunk it names is in a pack and matches its sha256 (a
damaged one is named with its snapshot, a file that uses it and its pack; this reads every pack).
A backup made where the box's identity key is readable is signed by it (backup.sig): the signature
must hold over the index, and the line says who signed it. Anyone able to write a backup can
rewrite it whole and its hashes with it, but not sign it as the box: --signed-by holds it to the
key you know (agentbox identity prints the box's). Nor can they make an older backup the box signed
look newer: --not-before holds it to a time (its index says when it was made, under the signature),
so an earlier backup put in the place of the latest one is refused.

Options:
  --signed-by KEY  the box identity (npub1… or hex) that must have signed it: an unsigned backup, or
                   one another key signed, is refused
  --not-before TIME  with --signed-by: refuse a backup made before TIME, an ISO-8601 time or an age
                   such as 26h or 7d (a check that backups are still made, or that this is the latest)
  --json      print {ok, dir, files, bytes, problems, signedBy, createdAt}
  -h, --help  show this help

Exit codes: 0 whole, 1 damaged or incomplete (each problem names the file), 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, 'signed-by': { type: 'string' }, 'not-before': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('give the backup directory: agentbox backup verify DIR');
  const check = await verifyBackup(path.resolve(positionals[0]!), signatureOptions(values['signed-by'], values['not-before']));
  if (values.json) {
    const { index: _index, ...summary } = check;
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else if (check.ok) {
    process.stdout.write(
      `${check.dir}: whole: ${check.files} files, ${(check.bytes / 1024 / 1024).toFixed(1)} MiB${check.index?.eventLog ? `, ${check.index.eventLog.events} events` : ''}, made ${check.createdAt ?? 'at a time it does not say'}, ${check.signedBy ? `signed by ${check.signedBy}` : 'unsigned'}\n`,
    );
  } else {
    for (const problem of check.problems) process.stdout.write(`${problem}\n`);
  }
  return check.ok ? 0 : 1;
}
