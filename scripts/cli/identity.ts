// `agentbox identity`: the box's Nostr identity (npub, hex public key, did:nostr), created under
// the box root when absent, or imported from an operator's key file. The secret is never printed.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { importIdentityKey, loadIdentityKey } from '../../management-api/src/boot/identity-key.js';
import { publicIdentity } from '../../management-api/src/mesh/identity.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { UsageError, UserError } from './cli-errors.js';

/** The key file's place under a box root. */
const keyUnderRoot = runtimePaths({ AGENTBOX_ROOT: '/' }).identityKeyFile;

export const usage = `Usage: agentbox identity [--root DIR] [--import FILE [--replace]] [--json]

Print the box's Nostr identity: its npub, hex public key and did:nostr. The secret key lives in a
0600 file under the box root (DIR${keyUnderRoot}); it is created when
absent and never printed.

Options:
  --root DIR       the box's root (default: $AGENTBOX_ROOT, else ./.agentbox)
  --import FILE    make the secret key held in FILE (nsec1… or 64 hex characters) the box's
                   identity; keys are never taken from arguments or environment variables
  --replace        with --import: replace an existing, different identity
  --json           print {npub, pubkey, did, file, created, imported}
  -h, --help       show this help

Exit codes: 0 done, 1 the key file or FILE cannot be used, 2 bad usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { root: { type: 'string' }, import: { type: 'string' }, replace: { type: 'boolean' }, json: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (a key is read only from a file: --import FILE)`);
  if (values.replace && values.import === undefined) throw new UsageError('--replace goes with --import FILE');
  const root = path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox');
  const file = runtimePaths({ AGENTBOX_ROOT: root }).identityKeyFile;
  // Warnings (permissions repaired) go to stderr as JSON lines; stdout carries only the answer.
  const logger = createLogger({ level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
  let created = false;
  let imported = false;
  let pubkey: string;
  try {
    if (values.import !== undefined) {
      const result = await importIdentityKey(file, path.resolve(values.import), { replace: values.replace === true, logger });
      imported = !result.unchanged;
      pubkey = result.pubkey;
    } else {
      ({ pubkey, created } = await loadIdentityKey(file, logger));
    }
  } catch (err) {
    if ((err as Error).name === 'SecretFileError') throw new UserError((err as Error).message, 1);
    throw err;
  }
  const identity = publicIdentity(pubkey);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...identity, file, created, imported }, null, 2)}\n`);
  } else {
    process.stdout.write(
      `npub    ${identity.npub}\npubkey  ${identity.pubkey}\ndid     ${identity.did}\nfile    ${file}${created ? ' (created)' : imported ? ' (imported)' : ''}\n`,
    );
  }
  return 0;
}
