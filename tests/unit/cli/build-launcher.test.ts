// `npm run build` builds the sandbox launcher too (scripts/build/build-launcher.mjs --if-compiler):
// with a compiler it compiles, without one it says how to get one and lets the build finish; the
// plain form (npm start, npm test) still fails without a compiler. Runs on a copy of the script and
// the C sources.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../helpers/cli.js';

const facts = JSON.parse(readFileSync(path.join(repoRoot, 'schema/box-facts.json'), 'utf8')) as {
  image: { sandboxLauncher: { source: string; binary: string } };
};
const { source, binary } = facts.image.sandboxLauncher;

/** A checkout holding only what the script reads: itself, the box facts and the launcher's sources. */
function miniCheckout(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-build-launcher-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'scripts/build'), { recursive: true });
  mkdirSync(path.join(dir, 'schema'));
  copyFileSync(path.join(repoRoot, 'scripts/build/build-launcher.mjs'), path.join(dir, 'scripts/build/build-launcher.mjs'));
  copyFileSync(path.join(repoRoot, 'schema/box-facts.json'), path.join(dir, 'schema/box-facts.json'));
  cpSync(path.join(repoRoot, path.dirname(source)), path.join(dir, path.dirname(source)), { recursive: true });
  return dir;
}

function build(dir: string, args: string[], cc: string) {
  return spawnSync(process.execPath, [path.join(dir, 'scripts/build/build-launcher.mjs'), ...args], { env: { ...process.env, CC: cc }, encoding: 'utf8' });
}

const exists = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

t.test('the build script of package.json ends by building the launcher when a compiler is present', async (t) => {
  const scripts = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  t.match(scripts['build'], /node scripts\/build\/build-launcher\.mjs --if-compiler$/);
});

t.test('without a compiler, --if-compiler names what is missing and how to install it, and succeeds', async (t) => {
  const dir = miniCheckout(t);
  const res = build(dir, ['--if-compiler'], 'agentbox-no-such-cc');
  t.equal(res.status, 0, res.stderr);
  t.match(res.stderr, /launcher .* was not built: no C compiler \(agentbox-no-such-cc\) on PATH/);
  t.match(res.stderr, /apt-get install gcc libc6-dev/);
  t.notOk(exists(path.join(dir, binary)), 'no binary is left behind');
});

t.test('without a compiler, the plain form (npm start, npm test) fails', async (t) => {
  const dir = miniCheckout(t);
  const res = build(dir, [], 'agentbox-no-such-cc');
  t.equal(res.status, 1);
  t.match(res.stderr, /compiling .* failed/);
});

t.test('with a compiler, --if-compiler compiles a launcher that runs', async (t) => {
  const dir = miniCheckout(t);
  const res = build(dir, ['--if-compiler'], process.env['CC'] ?? 'cc');
  t.equal(res.status, 0, res.stderr);
  t.equal(res.stderr, '');
  t.ok(exists(path.join(dir, binary)));
  const help = spawnSync(path.join(dir, binary), ['--help'], { encoding: 'utf8' });
  t.match(`${help.stdout}${help.stderr}`, /usage|Usage/);
});
