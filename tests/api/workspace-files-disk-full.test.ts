// The files API on a full disk: a box whose root is a 48 MiB tmpfs of the test's own. A body longer than the volume may still
// take is refused before a byte is written, a body that runs out of space midway (no length given) answers 507 with nothing
// kept, and a write that fits works right after.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { temporaryRecordsDir } from '../../management-api/src/workspace-files/temporaries-plugin.js';
import { startTestServer, type TestServer } from './support/harness.js';

const MIB = 1024 ** 2;
const isRoot = process.getuid?.() === 0;

/** A body of `bytes` bytes sent in 1 MiB chunks, without a length: the box learns its size only by writing it. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const n = Math.min(MIB, left);
      left -= n;
      controller.enqueue(new Uint8Array(n).fill(7));
    },
  });
}

/** A tar of one file of `bytes` bytes, as a stream without a length. */
function streamedTar(name: string, bytes: number): ReadableStream<Uint8Array> {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${bytes.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const body = streamed(bytes).getReader();
  let sent = false;
  let ended = false;
  return new ReadableStream({
    async pull(controller) {
      if (!sent) {
        sent = true;
        return controller.enqueue(new Uint8Array(header));
      }
      if (ended) return controller.close();
      const { value, done } = await body.read();
      if (!done) return controller.enqueue(value);
      ended = true;
      controller.enqueue(new Uint8Array(1024 + ((512 - (bytes % 512)) % 512)));
    },
  });
}

t.test('the files API on a full disk', { skip: isRoot ? false : 'mounting a tmpfs needs root (CI runs as root)' }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-files-full-'));
  // Searchable by others: as root, the box runs agents as a uid of their own, which must reach their directories.
  chmodSync(work, 0o711);
  const dir = path.join(work, 'box');
  mkdirSync(dir, { mode: 0o711 });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48m,mode=0711', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    t.pass('the files API on a full disk', { skip: `cannot mount a tmpfs here: ${mounted.stderr.trim()}` });
    return;
  }
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
  let box: TestServer | undefined;
  let agentId: string | undefined;
  // One teardown, in order: the agent, the box, then the mount under it, then the directory.
  t.teardown(async () => {
    if (agentId) await box?.api(`/v1/agents/${agentId}?graceMs=0`, { method: 'DELETE' });
    await box?.close();
    spawnSync('umount', ['-l', dir]);
    rmSync(work, { recursive: true, force: true });
  });
  box = await startTestServer({
    root: { dir, paths, cleanup: async () => undefined },
    toml:
      '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\ncritical = []\n\n' +
      '[resources]\nmin_free_disk = "4m"\n\n[sandbox]\nnamespaces = "off"\n',
  });
  const server = box;
  const spawned = await server.api('/v1/agents', { body: { name: 'writer', command: '/bin/sh', args: ['-c', 'exec sleep 600'] } });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  agentId = agent.id;
  const own = path.join(paths.workspaceDir, agent.cwd);
  const files = (body: Buffer | ReadableStream<Uint8Array>, at: string, method = 'PUT', headers: Record<string, string> = {}) =>
    fetch(`${server.server.apiUrl}/v1/agents/${agent.id}/files/${at}`, {
      method,
      headers: { authorization: `Bearer ${server.key}`, ...headers },
      body,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  const free = () => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  const before = free();

  await t.test('a body longer than the volume may still take: refused before a byte is written', async (t) => {
    const res = await files(Buffer.alloc(60 * MIB, 1), 'too-big.bin');
    t.equal(res.status, 507);
    t.match(await res.json(), {
      error: 'ABX_ERR_DISK_LOW',
      message: /^the body of 62914560 bytes is more than the workspace volume may still take \(\d+ bytes above resources\.min_free_disk\): nothing was written/,
    });
    const tar = await files(Buffer.alloc(60 * MIB), 'dir', 'POST', { 'content-type': 'application/x-tar' });
    t.equal(tar.status, 507, 'a tar of that length too');
    t.same(readdirSync(own), [], 'nothing in the workspace');
    t.ok(free() >= before - MIB, 'the free space is as it was');
  });

  await t.test('a body of unknown length that runs out of space: 507, nothing kept, the space back', async (t) => {
    const res = await files(streamed(60 * MIB), 'filled.bin');
    t.equal(res.status, 507);
    t.match(await res.json(), {
      error: 'ABX_ERR_DISK_LOW',
      message: /^the box's disk ran out of space while writing "filled\.bin" \(ENOSPC\): nothing of this write was kept/,
    });
    t.same(readdirSync(own), [], 'no file, no temporary');
    t.same(readdirSync(temporaryRecordsDir(paths)), [], 'no record of a temporary left');
    t.ok(free() >= before - MIB, `the space is back (${free()} bytes free, ${before} before)`);
  });

  await t.test('a tar that runs out of space: 507, no staging directory left', async (t) => {
    const res = await files(streamedTar('big.bin', 60 * MIB), 'unpacked', 'POST', { 'content-type': 'application/x-tar' });
    t.equal(res.status, 507);
    t.match(await res.json(), { error: 'ABX_ERR_DISK_LOW', message: /ran out of space while writing "unpacked" \(ENOSPC\)/ });
    t.same(readdirSync(own), [], 'nothing staged or extracted');
    t.ok(free() >= before - MIB, 'the space is back');
  });

  await t.test('a write that fits works right after', async (t) => {
    const res = await files(streamed(2 * MIB), 'fits.bin');
    t.equal(res.status, 201, await res.text());
    t.same(readdirSync(own), ['fits.bin']);
  });
});
