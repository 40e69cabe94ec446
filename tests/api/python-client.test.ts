// The Python client (clients/python) against a real box: compiled and imported with warnings as errors, then its
// unittest suite run by python3 with the box's URL, key and an operator's Nostr key in the environment.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { startTestServer, type TestServer } from './support/harness.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const clientDir = path.join(repo, 'clients/python');
const operator = generateSecretKey();
const toml = `[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]\n`;

let box: TestServer;
let cache: string;
t.before(async () => {
  box = await startTestServer({ toml });
  cache = await mkdtemp(path.join(tmpdir(), 'agentbox-pycache-'));
});
t.teardown(async () => {
  await box?.close();
  if (cache) await rm(cache, { recursive: true, force: true });
});

/** Run python3 without blocking this process's event loop: the box answering the Python side lives here. */
function python(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'python3',
      args,
      // Bytecode goes to a temporary prefix, not into the source tree.
      { cwd: repo, env: { ...process.env, PYTHONPATH: clientDir, PYTHONPYCACHEPREFIX: cache, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

t.test('the package compiles and imports with warnings as errors', async (t) => {
  const compiled = await python(['-m', 'compileall', '-q', 'clients/python/agentbox_client', 'clients/python/tests']);
  t.equal(compiled.code, 0, `compileall: ${compiled.stdout}${compiled.stderr}`);
  const imported = await python(['-W', 'error', '-c', 'import agentbox_client as a; print(len(a.ROUTES), len(a.ERROR_CODES))']);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.stdout, /^\d+ \d+\n$/);
});

t.test("the Python client's unittest suite against the box", async (t) => {
  const env = {
    AGENTBOX_URL: box.server.apiUrl,
    AGENTBOX_KEY: box.key,
    AGENTBOX_TEST_NOSTR_SECRET: Buffer.from(operator).toString('hex'),
    AGENTBOX_REPO: repo,
  };
  const run = await python(['-W', 'error', '-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-t', 'clients/python', '-v'], env);
  const ran = Number(/^Ran (\d+) tests?/m.exec(run.stderr)?.[1] ?? 0);
  t.equal(run.code, 0, 'every Python test passes', { output: run.stderr.slice(-8000) });
  t.match(run.stderr, /^OK$/m, 'unittest says OK (no skips hidden behind it)');
  t.ok(ran >= 20, `the suite ran (${ran} tests)`);
  t.notMatch(run.stderr, /skipped/, 'nothing skipped');
});
