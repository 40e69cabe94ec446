// The test image's agents layer and the npm install it comes from: the listed packages' commands
// linked into /usr/bin, a hard-linked binary carried once, the lock checked against the manifest.
import t from 'tap';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { boxFacts } from '../../../management-api/src/box-facts.js';
import { AgentNpmError, checkLock, lockProject, packageBins } from '../../../scripts/cli/image/agent-npm.js';
import { agentsLayer } from '../../../scripts/cli/image/agents-layer.js';

const base = boxFacts.image.agentNpmDir.replace(/^\//, '');

/** An install prefix: @a/cli (bin object, its binary hard-linked from a platform package) and plain (bin string). */
function fakeInstall(): string {
  const prefix = mkdtempSync(path.join(tmpdir(), 'agentbox-agents-layer-'));
  t.teardown(() => rmSync(prefix, { recursive: true, force: true }));
  const nm = path.join(prefix, 'node_modules');
  mkdirSync(path.join(nm, '@a/cli/bin'), { recursive: true });
  mkdirSync(path.join(nm, '@a/cli-linux-x64'), { recursive: true });
  mkdirSync(path.join(nm, 'plain'), { recursive: true });
  writeFileSync(path.join(nm, '@a/cli/package.json'), JSON.stringify({ name: '@a/cli', bin: { acli: './bin/acli.exe' } }));
  writeFileSync(path.join(nm, '@a/cli-linux-x64/acli'), 'not really a binary');
  chmodSync(path.join(nm, '@a/cli-linux-x64/acli'), 0o700);
  linkSync(path.join(nm, '@a/cli-linux-x64/acli'), path.join(nm, '@a/cli/bin/acli.exe'));
  writeFileSync(path.join(nm, 'plain/package.json'), JSON.stringify({ name: 'plain', bin: 'cli.js' }));
  writeFileSync(path.join(nm, 'plain/cli.js'), '#!/usr/bin/env node\n');
  return prefix;
}

t.test('the listed packages declare the commands, their dependencies do not', async (t) => {
  const prefix = fakeInstall();
  t.same(packageBins(prefix, ['@a/cli@1.0.0', 'plain@2.0.0']), { acli: '@a/cli/bin/acli.exe', plain: 'plain/cli.js' });
});

t.test('the layer: node_modules under agentNpmDir, commands in /usr/bin, a hard link carried once', async (t) => {
  const prefix = fakeInstall();
  const install = { prefix, bins: packageBins(prefix, ['@a/cli@1.0.0', 'plain@2.0.0']), installed: false };
  const entries = new Map(agentsLayer(install, new Set()).map((e) => [e.path, e]));
  t.match(entries.get('usr/bin/acli'), { type: 'symlink', target: '../lib/agentbox/agent-clis/node_modules/@a/cli/bin/acli.exe' });
  t.match(entries.get('usr/bin/plain'), { type: 'symlink', target: '../lib/agentbox/agent-clis/node_modules/plain/cli.js' });
  const copies = [`${base}/node_modules/@a/cli/bin/acli.exe`, `${base}/node_modules/@a/cli-linux-x64/acli`].map((p) => entries.get(p));
  t.same(copies.map((e) => e?.type).sort(), ['file', 'symlink'], 'one file, one link to it');
  t.match(
    copies.find((e) => e?.type === 'file'),
    { mode: 0o755, uid: 0 },
    'executable by every uid (agents run as others than its owner)',
  );
  t.match(entries.get(`${base}/node_modules/plain/package.json`), { type: 'file', mode: 0o644 });
  t.ok(entries.has('usr/lib/agentbox'), 'parents are listed');
});

t.test('a lock must name exactly the specs', async (t) => {
  const specs = ['@a/cli@1.0.0', 'plain@2.0.0'];
  const lock = { packages: { '': { dependencies: lockProject(specs).dependencies } } };
  t.doesNotThrow(() => checkLock(lock, specs, 'agents.lock.json'));
  t.throws(() => checkLock(lock, ['@a/cli@1.0.1', 'plain@2.0.0'], 'agents.lock.json'), AgentNpmError);
  t.throws(() => checkLock(lock, ['@a/cli@1.0.0'], 'agents.lock.json'), /plain: lock 2\.0\.0, manifest -.*agentbox agents lock/);
});
