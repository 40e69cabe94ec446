// Backup secrets sealed to age recipient keys, with the real age implementation: opened by any one recipient's identity,
// refused with another identity or when changed; malformed keys, identity files and index entries refused, named.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BACKUP_FORMAT } from '../../management-api/src/backup/backup-format.js';
import { checkRecipients, newIdentity, openSecretsWith, parseIdentities, sealSecretsTo } from '../../management-api/src/backup/secrets-age.js';
import { SecretsSealError } from '../../management-api/src/backup/secrets-seal.js';
import { verifyBackup } from '../../management-api/src/backup/verify-backup.js';

const secrets = { 'identity.key': Buffer.from('nsec1-not-a-real-key\n'), 'event-log.key': Buffer.from([0, 1, 2, 250, 255]) };

t.test('sealed to two recipients: each identity opens it, whole', async (t) => {
  const a = await newIdentity();
  const b = await newIdentity();
  const sealed = await sealSecretsTo(secrets, [a.recipient, b.recipient]);
  t.notOk(Buffer.from(sealed).includes('nsec1-not-a-real-key'), 'not in the clear');
  for (const who of [a, b]) t.same(await openSecretsWith(sealed, [who.identity]), secrets, 'opened whole');
  const c = await newIdentity();
  t.same(await openSecretsWith(sealed, [c.identity, b.identity]), secrets, 'an identity file holding a matching key among others opens it');
});

t.test('another identity, or a changed file, is refused', async (t) => {
  const a = await newIdentity();
  const other = await newIdentity();
  const sealed = await sealSecretsTo(secrets, [a.recipient]);
  await t.rejects(
    openSecretsWith(sealed, [other.identity], [a.recipient]),
    new SecretsSealError(
      `no identity given opens the sealed secrets: they were sealed to ${a.recipient}, the identities given are those of ${other.recipient}`,
    ),
    'the keys it was sealed to and those given are named',
  );
  const changed = Buffer.from(sealed);
  changed.writeUInt8(changed.readUInt8(changed.length - 5) ^ 0x01, changed.length - 5);
  await t.rejects(openSecretsWith(changed, [a.identity]), SecretsSealError, 'one byte changed in the payload');
  await t.rejects(openSecretsWith(Buffer.from('not an age file'), [a.identity]), SecretsSealError, 'not an age file');
});

t.test('recipient keys and identity files are checked, the bad one named', async (t) => {
  const a = await newIdentity();
  t.doesNotThrow(() => checkRecipients([a.recipient]));
  t.throws(() => checkRecipients([]), /no recipient key given/);
  t.throws(() => checkRecipients([a.recipient, 'age1short']), /"age1short" is not an age recipient key/);
  t.throws(() => checkRecipients([a.identity]), /is not an age recipient key/, 'an identity is not a recipient key');
  await t.rejects(sealSecretsTo(secrets, ['ssh-ed25519 AAAA']), /is not an age recipient key/, 'nothing sealed to a malformed key');
  t.same(parseIdentities(`# created: now\n# public key: ${a.recipient}\n\n${a.identity}\n`, 'id.txt'), [a.identity], 'comments and blank lines skipped');
  t.throws(() => parseIdentities(`# x\n${a.recipient}\n`, 'id.txt'), /id\.txt line 2 is not an age identity/, 'a recipient key where an identity should be');
  t.throws(() => parseIdentities('# only comments\n', 'id.txt'), /id\.txt holds no age identity/);
});

t.test('a backup index whose secrets entry is malformed is refused by the check, not trusted', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-secrets-index-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const secrets of [
    { names: ['identity.key'], cipher: 'age', recipients: 'age1…' },
    { names: ['identity.key'], cipher: 'rot13' },
    { names: 'identity.key', cipher: 'aes-256-gcm', kdf: 'scrypt' },
  ]) {
    writeFileSync(path.join(dir, 'backup.json'), JSON.stringify({ format: BACKUP_FORMAT, createdAt: '', source: '', manifest: false, secrets, files: [] }));
    const check = await verifyBackup(dir);
    t.equal(check.ok, false, JSON.stringify(secrets));
    t.match(check.problems[0], /its secrets entry is neither sealed with a passphrase nor to recipient keys/);
  }
});
