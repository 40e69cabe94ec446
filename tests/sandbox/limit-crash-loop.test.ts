// Limit kills count towards the crash-loop detector: an agent name that goes over its budget run after run is refused further starts.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CrashLoopDetector } from '../../management-api/src/adapters/orchestrator/crash-loop.js';
import { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { waitFor } from '../helpers/wait.js';

t.test('the second limit kill of a name within the window is a crash loop, and the name is refused', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-limit-loop-'));
  const logger = createLogger({ level: 'silent' });
  const accounting = new AgentAccounting({ logger, ceiling: { memory: '2g', cpu_seconds: 3600, processes: 64 }, intervalMs: 50 });
  const manager = new ProcessManager({
    workspaceDir: dir,
    parentEnv: { PATH: process.env['PATH'] },
    logger,
    accounting,
    crashLoop: new CrashLoopDetector(2, 60_000),
  });
  await manager.start();
  t.teardown(async () => {
    await manager.closeAll(0);
    rmSync(dir, { recursive: true, force: true });
  });
  // Four processes against a budget of two: ended at the first sample that sees them.
  const request = { name: 'forker', command: '/bin/sh', args: ['-c', 'sleep 300 & sleep 300 & sleep 300 & wait'], limits: { processes: 2 } };
  const ended = async (id: string) => waitFor(`agent ${id} to end`, () => (manager.status(id).state === 'running' ? undefined : manager.status(id)));

  const first = await ended((await manager.spawn(request)).id);
  t.match(first, { state: 'terminated', reason: 'limit:processes' }, 'one limit kill: terminated, with its reason');
  const second = await ended((await manager.spawn(request)).id);
  t.match(second, { state: 'crash-loop', reason: 'limit:processes' }, 'the second within the window: a crash loop, the reason kept');
  await t.rejects(manager.spawn(request), { name: 'AdapterConflictError', message: /agent "forker" is crash-looping \(2 failures within 60 s\)/ });

  // A terminate that was asked for is no failure, however often.
  const calm = { name: 'calm', command: '/bin/sh', args: ['-c', 'sleep 300'] };
  for (let i = 0; i < 3; i++) t.equal((await manager.terminate((await manager.spawn(calm)).id, 5_000)).state, 'terminated');
});
