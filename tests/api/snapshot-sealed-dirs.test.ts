// Restores and forks on a box that is not root (as in its container) over directories an agent sealed (chmod 555, 000): the old tree goes whole, and nothing of the box's is left in the workspace.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./support/sealed-tree-box.ts', import.meta.url));
// The TypeScript loader only: the coverage hooks write where another user may not.
const loader = process.execArgv.filter((a) => a.includes('@tapjs/typescript'));
// Root may write any directory: run as nobody, where the box meets modes as its own user does.
const argv = [...(process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []), process.execPath, ...loader, script];
// Nothing of tap's (NODE_OPTIONS would load its coverage hooks again).
const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/tmp', TS_NODE_TRANSPILE_ONLY: '1' };

t.test('a restore replaces, and a failed fork removes, trees holding read-only and unenterable directories', async (t) => {
  const out = execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env, timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = JSON.parse(out.trim().split('\n').at(-1)!) as {
    uid: number;
    snapshot: number;
    restores: Array<{ status: number; json: unknown; workspace: string[] }>;
    fork: { status: number; json: unknown };
    afterFork: string[];
  };
  t.not(seen.uid, 0, 'the box ran as another user than root');
  t.equal(seen.snapshot, 201);
  for (const [i, r] of seen.restores.entries()) {
    t.equal(r.status, 200, `restore ${i + 1}: ${JSON.stringify(r.json)}`);
    t.same(r.workspace, ['sealed'], `restore ${i + 1}: the replaced tree is gone, nothing of the box's left beside the agent's directory`);
  }
  t.not(seen.fork.status, 201, 'the fork whose command does not exist did not start');
  t.same(seen.afterFork, ['sealed'], "its directory, the snapshot's read-only directories built back, was removed");
});
