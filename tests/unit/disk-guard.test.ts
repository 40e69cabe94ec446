// The disk guard: statfs of the watched directories against the threshold, a refusal naming the path, readiness with the reason, recovery.
import t from 'tap';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DiskGuard, type DiskState } from '../../management-api/src/probes/disk-guard.js';
import { Readiness } from '../../management-api/src/probes/readiness.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-guard-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const HOUR = 3_600_000;

t.test('below the threshold: low, a spawn refused with ABX_ERR_DISK_LOW naming path, free bytes and threshold', async (t) => {
  const changes: Array<readonly DiskState[]> = [];
  // No disk has 2^52 bytes free: always below.
  const guard = new DiskGuard([{ name: 'state', path: dir }], { thresholdBytes: 2 ** 52, intervalMs: HOUR, onChange: (s) => changes.push(s) });
  t.teardown(() => guard.close());
  await guard.start();
  t.equal(changes.length, 1, 'the first check reports');
  t.match(guard.states[0], { name: 'state', path: dir, low: true, thresholdBytes: 2 ** 52 });
  t.ok(guard.states[0]!.freeBytes > 0, 'free bytes from statfs');
  await t.rejects(guard.admit(), {
    code: 'ABX_ERR_DISK_LOW',
    statusCode: 507,
    message: new RegExp(`^no new agent starts while free space on ${dir} is .* bytes\\), below resources\\.min_free_disk .* \\(4503599627370496 bytes\\)`),
  });
  await guard.check();
  t.equal(changes.length, 1, 'no report while nothing flips');
});

t.test('above the threshold: admitted; a directory statfs cannot read is left to the mount checker', async (t) => {
  const guard = new DiskGuard(
    [
      { name: 'state', path: dir },
      { name: 'gone', path: path.join(dir, 'missing') },
    ],
    { thresholdBytes: 1, intervalMs: HOUR, onChange: () => undefined },
  );
  await guard.start();
  guard.close();
  await guard.admit();
  t.match(guard.states, [{ low: false }, { low: false, error: 'ENOENT' }]);
});

t.test('readiness: 503 with disk:<name> missing and the reason, 200 again once space returns', async (t) => {
  const readiness = new Readiness({
    logger: createLogger({ level: 'silent' }),
    metrics: createMetrics({ version: '0', imageHash: 'dev', manifestSha256: '0'.repeat(64) }),
    clock: () => new Date(),
  });
  const base = { sealFile: '/seal', sealPresent: true, mounts: [], slots: [] };
  const state: DiskState = { name: 'state', path: '/var/lib/agentbox', freeBytes: 1024 ** 2, thresholdBytes: 512 * 1024 ** 2, low: true };
  readiness.update({ ...base, disks: [state] });
  const body = JSON.parse(readiness.response.body) as Record<string, unknown>;
  t.equal(readiness.response.status, 503);
  t.same(body['missing'], ['disk:state']);
  t.equal(
    body['reason'],
    'free space on /var/lib/agentbox is 1.0 MiB (1048576 bytes), below resources.min_free_disk 512.0 MiB (536870912 bytes): new agents are refused until space returns',
  );
  readiness.update({ ...base, disks: [{ ...state, freeBytes: 600 * 1024 ** 2, low: false }] });
  t.equal(readiness.response.status, 200);
  t.match(JSON.parse(readiness.response.body), { requirements: ['seal', 'disk:state'] });
});

t.test('headroom: what the volume may still take above the threshold, from a fresh statfs', async (t) => {
  const guard = new DiskGuard(
    [
      { name: 'workspace', path: dir },
      { name: 'gone', path: path.join(dir, 'missing') },
    ],
    { thresholdBytes: 64 * 1024 ** 2, intervalMs: HOUR, onChange: () => undefined },
  );
  const s = statfsSync(dir);
  const expected = s.bavail * s.bsize - 64 * 1024 ** 2;
  const room = await guard.headroom('workspace');
  // Other writers on the machine move the figure between the two statfs calls.
  t.ok(Math.abs(room - expected) < 256 * 1024 ** 2, `${room} bytes, statfs says ${expected}`);
  const below = new DiskGuard([{ name: 'workspace', path: dir }], { thresholdBytes: 2 ** 52, intervalMs: HOUR, onChange: () => undefined });
  t.equal(await below.headroom('workspace'), 0, 'below the threshold: none');
  t.equal(await guard.headroom('gone'), Number.POSITIVE_INFINITY, 'statfs cannot read it: not bounded here');
  await t.rejects(guard.headroom('nope'), /watches no directory named nope/);
});
