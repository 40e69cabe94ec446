// Snapshots, restores and forks on a box that is not root (as in its container) of an agent's entries closed to their owner (chmod 000, 0200, 0100, 0600, 0555): captured, modes put back, and the old tree removed whole.
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

t.test('entries closed to their owner are captured whole, and a restore replaces, and a failed fork removes, trees holding them', async (t) => {
  const out = execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env, timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = JSON.parse(out.trim().split('\n').at(-1)!) as {
    uid: number;
    snapshot: number;
    stats: Record<string, number>;
    read: Record<string, string>;
    modes: Record<string, string>;
    files: Record<string, string>;
    afterFiles: { pkg: string[]; f: string };
    restores: Array<{ status: number; json: unknown; workspace: string[]; errors?: string }>;
    fork: { status: number; json: unknown };
    afterFork: string[];
  };
  t.not(seen.uid, 0, 'the box ran as another user than root');
  t.equal(seen.snapshot, 201);
  t.match(seen.stats, { skipped: 0, files: 6, dirs: 6 }, 'nothing closed to its owner is left out');
  t.same(
    seen.read,
    { 'locked/f': '200 0644 y', secret: '200 0000 s', wo: '200 0200 w', 'xo/g': '200 0644 g', 'rw/h': '200 0644 h' },
    'each read from the store as it was, with its mode',
  );
  t.same(seen.modes, { locked: '0', secret: '0', wo: '200', xo: '100', rw: '600' }, 'the capture put back every mode it opened up');
  for (const [what, answer] of Object.entries(seen.files))
    t.match(
      answer,
      /^409 ABX_ERR_CONFLICT ".+" or a directory above it is closed to the agent's own user \(EACCES: .*chmod -R u\+rwX/,
      `files API, ${what}: refused by name with the fix`,
    );
  t.equal(Object.keys(seen.files).length, 7, 'every files request was made');
  t.same(seen.afterFiles, { pkg: ['f'], f: 'x' }, 'nothing was added, replaced or removed in the closed directory');
  for (const [i, r] of seen.restores.entries()) {
    t.equal(r.status, 200, `restore ${i + 1}: ${JSON.stringify(r.json)}${r.errors ? `; the box's errors: ${r.errors}` : ''}`);
    t.same(r.workspace, ['sealed'], `restore ${i + 1}: the replaced tree is gone, nothing of the box's left beside the agent's directory`);
  }
  t.not(seen.fork.status, 201, 'the fork whose command does not exist did not start');
  t.same(seen.afterFork, ['sealed'], "its directory, the snapshot's read-only directories built back, was removed");
});
