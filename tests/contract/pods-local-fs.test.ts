// pods/local-fs through the resolver: the pods contract, plus what only a local disk has (links, sidecars, crashes).
import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { podsContract } from './pods.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

const manifest = onlySlot('pods', 'local-fs');
const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

t.test('contract', async (t) => {
  podsContract(t, () => startSlot('pods', manifest));
});

t.test('resources are files under <state>/pods with a sidecar holding the content type', async (t) => {
  const h = await startSlot('pods', manifest);
  t.teardown(() => h.close());
  await h.ops.put('/docs/readme.md', text('hi'), { contentType: 'text/markdown; charset=utf-8' });
  const dir = path.join(h.paths.stateDir, 'pods', 'docs');
  t.equal(readFileSync(path.join(dir, 'readme.md'), 'utf8'), 'hi');
  t.match(JSON.parse(readFileSync(path.join(dir, '.abx-meta.readme.md'), 'utf8')), { contentType: 'text/markdown; charset=utf-8' });
  t.same(readdirSync(dir).sort(), ['.abx-meta.readme.md', 'readme.md'], 'no temporary files remain');
  t.same(
    (await h.ops.list('/docs/', {})).items.map((i) => i.path),
    ['/docs/readme.md'],
    'sidecars are not listed',
  );
});

t.test('symbolic links planted in the pod are never followed', async (t) => {
  const h = await startSlot('pods', manifest);
  t.teardown(() => h.close());
  const pod = path.join(h.paths.stateDir, 'pods');
  const outside = mkdtempSync(path.join(tmpdir(), 'agentbox-outside-'));
  t.teardown(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(path.join(outside, 'secret.txt'), 'outside secret');
  await h.ops.put('/inner/ok.txt', text('ok'), { contentType: 'text/plain' });
  symlinkSync(outside, path.join(pod, 'evil-dir'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(pod, 'evil-file'));
  symlinkSync(outside, path.join(pod, 'inner', 'nested-link'));
  symlinkSync(path.join(pod, 'inner'), path.join(pod, 'alias-inside'));

  for (const p of ['/evil-file', '/evil-dir/secret.txt', '/inner/nested-link/secret.txt', '/alias-inside/ok.txt']) {
    await t.rejects(h.ops.get(p), { code: 'ABX_ERR_VALIDATION', message: /symbolic link/ }, `get ${p}`);
  }
  await t.rejects(h.ops.put('/evil-dir/new.txt', text('x'), { contentType: 'text/plain' }), { code: 'ABX_ERR_VALIDATION' });
  await t.rejects(h.ops.put('/evil-dir/sub/new.txt', text('x'), { contentType: 'text/plain' }), { code: 'ABX_ERR_VALIDATION' });
  await t.rejects(h.ops.put('/evil-file', text('overwritten'), { contentType: 'text/plain' }), { code: 'ABX_ERR_VALIDATION' });
  await t.rejects(h.ops.put('/inner/nested-link/', new Uint8Array(0), { contentType: 'text/turtle' }), { code: 'ABX_ERR_VALIDATION' });
  await t.rejects(h.ops.delete('/evil-file'), { code: 'ABX_ERR_VALIDATION' });
  await t.rejects(h.ops.delete('/evil-dir/secret.txt'), { code: 'ABX_ERR_VALIDATION' });
  await t.rejects(h.ops.list('/evil-dir/', {}), { code: 'ABX_ERR_VALIDATION' });

  t.same(readdirSync(outside), ['secret.txt'], 'nothing was created outside the pod');
  t.equal(readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'outside secret', 'the outside file is untouched');
  t.ok(existsSync(path.join(pod, 'evil-file')), 'the link itself was not removed either');
  const rootNames = (await h.ops.list('/', {})).items.map((i) => i.path);
  t.same(rootNames, ['/inner/'], 'links are not listed');
  t.same(
    (await h.ops.list('/inner/', {})).items.map((i) => i.path),
    ['/inner/ok.txt'],
  );
});

t.test('a crash between the data and sidecar renames: the bytes win, the ETag still matches them', async (t) => {
  const h = await startSlot('pods', manifest);
  t.teardown(() => h.close());
  await h.ops.put('/c/file.txt', text('old'), { contentType: 'text/plain' });
  const dir = path.join(h.paths.stateDir, 'pods', 'c');
  // Simulate the data rename having happened and the sidecar rename not: a new inode, old sidecar.
  writeFileSync(path.join(dir, '.abx-tmp-crash'), 'new bytes');
  renameSync(path.join(dir, '.abx-tmp-crash'), path.join(dir, 'file.txt'));
  const got = await h.ops.get('/c/file.txt');
  t.equal(Buffer.from(got.body).toString(), 'new bytes');
  t.equal(got.contentType, 'application/octet-stream', 'the stale content type is not reported for new bytes');
  const listed = (await h.ops.list('/c/', {})).items[0];
  t.equal(listed?.etag, got.etag, 'list and get agree');
  const next = await h.ops.put('/c/file.txt', text('fixed'), { contentType: 'text/plain', ifMatch: got.etag });
  t.equal(next.created, false, 'the computed ETag works as a precondition');
});

t.test('temporary files an interrupted write left are removed at connect', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-pods-restart-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startSlot('pods', manifest, { root });
  await first.ops.put('/kept.txt', text('kept'), { contentType: 'text/plain' });
  await first.close();
  const pod = path.join(root, 'var/lib/agentbox/pods');
  writeFileSync(path.join(pod, '.abx-tmp-0123456789abcdef'), 'partial');
  mkdirSync(path.join(pod, 'sub'));
  writeFileSync(path.join(pod, 'sub', '.abx-tmp-0123456789abcdef'), 'partial');
  const second = await startSlot('pods', manifest, { root });
  t.teardown(() => second.close());
  t.notOk(existsSync(path.join(pod, '.abx-tmp-0123456789abcdef')));
  t.equal(Buffer.from((await second.ops.get('/kept.txt')).body).toString(), 'kept', 'committed data survives a restart');
  await second.ops.delete('/sub/');
  t.notOk(existsSync(path.join(pod, 'sub')), 'a container holding only leftovers counts as empty');
});
