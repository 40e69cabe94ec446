// A box run by a user other than root, as in its container, for what root's rights would hide: an agent's files and directories closed to their owner once it has ended (chmod 000, 0200, 0100, 0600, 0555), snapshotted, the snapshot restored in place twice and forked for an agent that fails to start. Prints one JSON line of what the box answered and left in the workspace.
import { execFileSync } from 'node:child_process';
import { chmod, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer } from './harness.js';

const box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n' });
/** The workspace's names, less the box's own passing write checks (`.agentbox-write-probe-<pid>`, made and removed at once). */
const workspace = async (): Promise<string[]> => (await readdir(box.paths.workspaceDir)).filter((n) => !n.startsWith('.agentbox-write-probe-')).sort();
try {
  // The agent writes its tree and ends. A running agent whose directory holds one the box cannot
  // list or enter is ended by the disk walk's next pass (limit:disk, docs/user/sandbox.md), the
  // first 5 s after its start: an agent that closed them itself raced that pass, ended mid-test
  // whenever the test outlasted it (every run on a loaded machine), and ended with its tree half
  // closed, and the test failed, when the pass came while it was still closing them.
  const script =
    'mkdir -p cache/mod/pkg locked xo rw && echo x > cache/mod/pkg/f && echo y > locked/f && echo g > xo/g && echo h > rw/h && echo s > secret && echo w > wo';
  const spawned = await box.api('/v1/agents', { body: { name: 'sealed', command: '/bin/sh', args: ['-c', script] } });
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  // Its end is an event, not a time: its output followed until it ends.
  const followed = await fetch(`${box.server.apiUrl}/v1/agents/${agent.id}/output?follow=true`, {
    headers: { authorization: `Bearer ${box.key}`, accept: 'text/event-stream' },
  });
  await followed.text();
  const ended = (await box.api(`/v1/agents/${agent.id}`)).json['agent'] as { state: string; exitCode?: number };
  if (ended.state !== 'exited' || ended.exitCode !== 0) throw new Error(`the agent did not write its tree: ${JSON.stringify(ended)}`);
  // Then closed as it would have left them, by the uid it ran as (the box's own, on a box that is
  // not root). Go's module cache is read-only (0555) all the way down; a 000 directory is one nobody enters.
  const at = (name: string) => path.join(box.paths.workspaceDir, agent.cwd, name);
  for (const [name, mode] of [
    ['cache/mod/pkg', 0o555],
    ['cache/mod', 0o555],
    ['cache', 0o555],
    ['locked', 0o000],
    ['secret', 0o000],
    ['xo', 0o100],
    ['rw', 0o600],
    ['wo', 0o200],
  ] as const)
    await chmod(at(name), mode);
  const snapshot = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  if (snapshot.status !== 201)
    throw new Error(
      `snapshot: ${snapshot.status} ${JSON.stringify(snapshot.json)}: ${box.logs
        .text()
        .split('\n')
        .filter((l) => l.includes('"level":50'))
        .join(' ')
        .slice(0, 2000)}`,
    );
  const sid = (snapshot.json['snapshot'] as { id: string }).id;
  const stats = (snapshot.json['snapshot'] as { stats: Record<string, number> }).stats;
  // What the snapshot holds of each closed entry, read from the store; and the modes the agent left, after the capture.
  const read: Record<string, string> = {};
  for (const file of ['locked/f', 'secret', 'wo', 'xo/g', 'rw/h']) {
    const res = await fetch(`${box.server.apiUrl}/v1/snapshots/${sid}/files/${file}`, { headers: { authorization: `Bearer ${box.key}` } });
    read[file] = `${res.status} ${res.headers.get('x-file-mode')} ${(await res.text()).trim()}`;
  }
  const modes: Record<string, string> = {};
  for (const name of ['locked', 'secret', 'wo', 'xo', 'rw']) modes[name] = ((await lstat(at(name))).mode & 0o7777).toString(8);
  // The files API on the same closed entries: each refused by name with the fix, nothing changed.
  const files: Record<string, string> = {};
  const octets = { 'content-type': 'application/octet-stream' };
  for (const [what, pathname, init] of [
    ['put into 0555', 'cache/mod/pkg/new', { method: 'PUT', rawBody: 'n', headers: octets }],
    ['replace in 0555', 'cache/mod/pkg/f', { method: 'PUT', rawBody: 'n', headers: octets }],
    ['delete from 0555', 'cache/mod/pkg/f', { method: 'DELETE' }],
    ['read 0000', 'secret', {}],
    ['list 0000', 'locked?list', {}],
    ['read below 0000', 'locked/f', {}],
    ['put below 0000', 'locked/g', { method: 'PUT', rawBody: 'n', headers: octets }],
  ] as const) {
    const res = await box.api(`/v1/agents/${agent.id}/files/${pathname}`, init);
    files[what] = `${res.status} ${String(res.json['error'] ?? '')} ${String(res.json['message'] ?? '')}`;
  }
  const afterFiles = { pkg: (await readdir(at('cache/mod/pkg'))).sort(), f: execFileSync('cat', [at('cache/mod/pkg/f')], { encoding: 'utf8' }).trim() };
  const restores: unknown[] = [];
  // The second replaces the tree the first built: the snapshot's read-only directories built back.
  for (let i = 0; i < 2; i++) {
    const res = await box.api(`/v1/agents/${agent.id}/restore`, { body: { snapshot: sid } });
    // A failure carries the box's errors: its log is in this process's memory, gone once it ends.
    const errors =
      res.status === 200
        ? undefined
        : box.logs
            .text()
            .split('\n')
            // Less the audit trail's own, said of every action here: the events slot is off.
            .filter((l) => l.includes('"level":50') && !l.includes('AuditEventNotRecorded'))
            .join('\n')
            .slice(0, 8000);
    restores.push({ status: res.status, json: res.json, workspace: await workspace(), ...(errors !== undefined ? { errors } : {}) });
  }
  const fork = await box.api('/v1/agents', { body: { name: 'sealedfork', command: '/nonexistent/agent', fromSnapshot: sid } });
  const afterFork = await workspace();
  console.log(
    JSON.stringify({
      uid: process.getuid?.(),
      snapshot: snapshot.status,
      stats,
      read,
      modes,
      files,
      afterFiles,
      restores,
      fork: { status: fork.status, json: fork.json },
      afterFork,
    }),
  );
} finally {
  // The test root is removed with fs.rm, which stops at a directory it may not write.
  execFileSync('chmod', ['-R', 'u+rwX', box.paths.workspaceDir]);
  await box.close();
}
