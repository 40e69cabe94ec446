// `agentbox identity` run as the installed bin: creates the key under the root, prints only public
// forms (npub, hex, did:nostr), imports an nsec or hex key from a file, and never prints a secret.
import t from 'tap';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { nsecEncode, npubEncode } from 'nostr-tools/nip19';
import { bytesToHex } from 'nostr-tools/utils';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';
import { runAgentbox } from '../../helpers/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-identity-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const keyFile = (root: string): string => runtimePaths({ AGENTBOX_ROOT: root }).identityKeyFile;

t.test('creates the key under --root, then reuses it; --json and text agree', async (t) => {
  const root = path.join(dir, 'a');
  const first = runAgentbox(['identity', '--root', root, '--json']);
  t.equal(first.code, 0, first.stderr);
  const out = JSON.parse(first.stdout) as Record<string, unknown>;
  const secret = readFileSync(keyFile(root), 'utf8').trim();
  t.match(secret, /^[0-9a-f]{64}$/);
  t.equal(statSync(keyFile(root)).mode & 0o777, 0o600, 'the key file is 0600');
  const pubkey = getPublicKey(Buffer.from(secret, 'hex'));
  t.same(out, { pubkey, npub: npubEncode(pubkey), did: `did:nostr:${pubkey}`, file: keyFile(root), created: true, imported: false });
  const text = runAgentbox(['identity'], { env: { ...process.env, AGENTBOX_ROOT: root } });
  t.equal(text.code, 0, text.stderr);
  t.match(
    text.stdout,
    `npub    ${npubEncode(pubkey)}\npubkey  ${pubkey}\ndid     did:nostr:${pubkey}\nfile    ${keyFile(root)}\n`,
    'AGENTBOX_ROOT is the default root; the key is reused',
  );
  for (const r of [first, text]) {
    t.notMatch(r.stdout + r.stderr, secret, 'the secret is never printed');
    t.notMatch(r.stdout + r.stderr, /nsec1/);
  }
});

t.test('imports a key from a file (nsec or hex), refuses to replace without --replace', async (t) => {
  const root = path.join(dir, 'b');
  const sk = generateSecretKey();
  const pubkey = getPublicKey(sk);
  const nsecFile = path.join(dir, 'key.nsec');
  writeFileSync(nsecFile, `  ${nsecEncode(sk)}\n`, { mode: 0o600 });
  const imported = runAgentbox(['identity', '--root', root, '--import', nsecFile, '--json']);
  t.equal(imported.code, 0, imported.stderr);
  t.match(JSON.parse(imported.stdout), { pubkey, imported: true, created: false });
  t.equal(readFileSync(keyFile(root), 'utf8').trim(), bytesToHex(sk), 'stored as hex');
  t.equal(statSync(keyFile(root)).mode & 0o777, 0o600);
  t.notMatch(imported.stdout + imported.stderr, nsecEncode(sk));

  const again = runAgentbox(['identity', '--root', root, '--import', nsecFile, '--json']);
  t.equal(again.code, 0, 'importing the same key again is a no-op');
  t.match(JSON.parse(again.stdout), { pubkey, imported: false });

  const other = generateSecretKey();
  const hexFile = path.join(dir, 'key.hex');
  writeFileSync(hexFile, `${bytesToHex(other).toUpperCase()}\n`, { mode: 0o600 });
  const refused = runAgentbox(['identity', '--root', root, '--import', hexFile]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /already holds an identity key; pass --replace/);
  t.equal(readFileSync(keyFile(root), 'utf8').trim(), bytesToHex(sk), 'unchanged');
  const replaced = runAgentbox(['identity', '--root', root, '--import', hexFile, '--replace']);
  t.equal(replaced.code, 0, replaced.stderr);
  t.match(replaced.stdout, `pubkey  ${getPublicKey(other)}`);
  t.equal(readFileSync(keyFile(root), 'utf8').trim(), bytesToHex(other));
});

t.test('bad keys and usage are refused without quoting the secret', async (t) => {
  const root = path.join(dir, 'c');
  const sk = generateSecretKey();
  const nsec = nsecEncode(sk);
  const broken = nsec.slice(0, -1) + (nsec.endsWith('q') ? 'p' : 'q');
  const badFile = path.join(dir, 'bad.nsec');
  writeFileSync(badFile, broken);
  const bad = runAgentbox(['identity', '--root', root, '--import', badFile]);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /checksum or length is wrong/);
  t.notMatch(bad.stderr, broken.slice(5, 30));
  writeFileSync(badFile, 'npub1notasecret');
  t.match(runAgentbox(['identity', '--root', root, '--import', badFile]).stderr, /neither an nsec1… key nor 64 hex characters/);
  t.match(runAgentbox(['identity', '--root', root, '--import', path.join(dir, 'missing')]), { code: 1, stderr: /cannot read .*missing: ENOENT/ });
  t.match(runAgentbox(['identity', '--root', root, nsec]), { code: 2, stderr: /a key is read only from a file/ }, 'never from an argument');
  t.match(runAgentbox(['identity', '--root', root, '--replace']), { code: 2, stderr: /--replace goes with --import/ });
  t.match(runAgentbox(['identity', '--help']), { code: 0, stdout: /Usage: agentbox identity/ });

  // An unusable key file is named with the fix.
  const root2 = path.join(dir, 'd');
  t.equal(runAgentbox(['identity', '--root', root2]).code, 0);
  writeFileSync(keyFile(root2), 'garbage\n');
  t.match(runAgentbox(['identity', '--root', root2]), { code: 1, stderr: /does not hold a 64-character hex secret key/ });

  // A key file readable by others is repaired to 0600, with a warning on stderr only.
  const root3 = path.join(dir, 'e');
  t.equal(runAgentbox(['identity', '--root', root3]).code, 0);
  chmodSync(keyFile(root3), 0o644);
  const repaired = runAgentbox(['identity', '--root', root3]);
  t.equal(repaired.code, 0);
  t.match(repaired.stderr, /IdentityKeyPermissionsRepaired/);
  t.match(repaired.stdout, /^npub {4}npub1/);
  t.equal(statSync(keyFile(root3)).mode & 0o777, 0o600);
});
