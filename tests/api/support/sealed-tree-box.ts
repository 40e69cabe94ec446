// A box run by a user other than root, as in its container, for what root's rights would hide: an agent leaves directories it may not write or enter, its snapshot is restored in place twice and forked by an agent that fails to start. Prints one JSON line of what the box answered and left in the workspace.
import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, waitFor } from './harness.js';

const box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n' });
try {
  // Go's module cache is read-only (0555) all the way down; a 000 directory is one nobody enters.
  const script =
    'mkdir -p cache/mod/pkg locked && echo x > cache/mod/pkg/f && echo y > locked/f && chmod 555 cache/mod/pkg cache/mod cache && chmod 000 locked && touch done && exec sleep 600';
  const spawned = await box.api('/v1/agents', { body: { name: 'sealed', command: '/bin/sh', args: ['-c', script] } });
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  await waitFor('the agent sealed its directories', async () => (await readdir(path.join(box.paths.workspaceDir, agent.cwd))).includes('done'));
  const snapshot = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  const sid = (snapshot.json['snapshot'] as { id: string }).id;
  await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
  const restores: unknown[] = [];
  // The second replaces the tree the first built: the snapshot's read-only directories built back.
  for (let i = 0; i < 2; i++) {
    const res = await box.api(`/v1/agents/${agent.id}/restore`, { body: { snapshot: sid } });
    restores.push({ status: res.status, json: res.json, workspace: (await readdir(box.paths.workspaceDir)).sort() });
  }
  const fork = await box.api('/v1/agents', { body: { name: 'sealedfork', command: '/nonexistent/agent', fromSnapshot: sid } });
  const afterFork = (await readdir(box.paths.workspaceDir)).sort();
  console.log(JSON.stringify({ uid: process.getuid?.(), snapshot: snapshot.status, restores, fork: { status: fork.status, json: fork.json }, afterFork }));
} finally {
  // The test root is removed with fs.rm, which stops at a directory it may not write.
  execFileSync('chmod', ['-R', 'u+rwX', box.paths.workspaceDir]);
  await box.close();
}
