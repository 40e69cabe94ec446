// Stage A makes the seal per boot: a seal or failure marker left by an earlier boot is removed
// before supervisord (and the seal listener, which trusts what it finds) starts.
import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { runStageA } from '../../management-api/src/boot/stage-a.js';
import type { BootEvents } from '../../management-api/src/boot/boot-events.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

t.test('a seal and a failure marker from an earlier boot are gone when stage A completes', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-stage-a-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  mkdirSync(paths.runDir, { recursive: true });
  writeFileSync(paths.sealFile, '{"sealed_at":"earlier boot"}\n');
  writeFileSync(paths.bootstrapFailedFile, '{"reason":"the seal timed out after 10 s; still waiting for: api","timeout":true}\n');
  const manifest = path.join(root, 'agentbox.toml');
  writeFileSync(manifest, '');
  const artifacts = path.join(root, 'artifacts.json');
  writeFileSync(artifacts, '[]');

  const seen: string[] = [];
  const logger = pino({ level: 'silent' });
  const events: BootEvents = { logger, emit: (event) => void seen.push(event), fail: (event) => void seen.push(`fail:${event}`) };
  const code = await runStageA({
    env: { AGENTBOX_ROOT: root, AGENTBOX_MANIFEST: manifest, AGENTBOX_ARTIFACTS: artifacts, AGENTBOX_LOCAL: '1', PATH: process.env['PATH'] },
    events,
  });
  t.equal(code, 0, `stage A completed (${seen.join(', ')})`);
  t.ok(seen.includes('StageACompleted'));
  t.notOk(existsSync(paths.sealFile), 'the earlier seal is removed');
  t.notOk(existsSync(paths.bootstrapFailedFile), 'the earlier failure marker is removed');
});
