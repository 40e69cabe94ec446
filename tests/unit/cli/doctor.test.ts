// `agentbox doctor`, run as the installed bin on this host: every check passes for a free box,
// and a port held by a real running API (named with its programme, manifest key and override),
// loose secret permissions and a bad manifest each fail with their fix. Exit codes, human output and --json.
import t from 'tap';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { startTestServer } from '../../api/support/harness.js';
import { freePort } from '../../api/support/tcp-backend.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-doctor-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
// Port overrides in the environment would change what doctor checks: run it without them.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));
const doctor = (...args: string[]) => runAgentboxAsync(['doctor', ...args], { cwd: work, env });

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

/** A manifest whose API and metrics ports are the given ones (and its egress proxy's a free one: 3128 may be another box's). */
async function manifest(name: string, apiPort: number, metricsPort: number): Promise<string> {
  const file = path.join(work, name);
  writeFileSync(file, `[api]\nport = ${apiPort}\n\n[observability]\nmetrics_port = ${metricsPort}\n\n[sandbox.egress]\nport = ${await freePort()}\n`);
  return file;
}

t.test('a free host passes every check: exit 0', async (t) => {
  const file = await manifest('free.toml', await freePort(), await freePort());
  const r = await doctor('--manifest', file, '--root', path.join(work, 'fresh-root'));
  t.equal(r.code, 0, r.stdout + r.stderr);
  for (const name of ['node', 'nix', 'supervisord', 'supervisorctl', 'manifest', 'api port', 'metrics port', 'egress proxy port'])
    t.match(r.stdout, new RegExp(`^ok {4}${name}: `, 'm'), name);
  t.match(r.stdout, /^ok {4}permissions secrets: .* does not exist yet \(created at first start\)$/m);
  // The workspace filesystem may warn (ext4 without a journal), which does not fail the doctor.
  t.match(r.stdout, /^(ok {4}|warn {2})workspace filesystem: /m);
  t.match(r.stdout, /everything needed is in place(; 1 warning above)?\n$/);
});

t.test('the port of a running API is reported in use, with the fix', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const apiPort = Number(new URL(box.server.apiUrl).port);
  const file = await manifest('busy.toml', apiPort, await freePort());
  const r = await doctor('--manifest', file, '--root', path.join(work, 'fresh-root'));
  t.equal(r.code, 1);
  t.match(
    r.stdout,
    `FAIL  api port: port ${apiPort} on 127.0.0.1 is already in use: the API (programme management-api, manifest key api.port, override AGENTBOX_API_PORT) cannot listen; another box on this machine? (agentbox boxes; ss -ltnp 'sport = :${apiPort}')`,
  );
  t.match(r.stdout, `      fix: AGENTBOX_API_PORT=0 agentbox up --local (any free port), or set api.port in ${file}\n`);
  t.match(r.stdout, /^ok {4}metrics port: /m, 'the other checks still run');
  t.match(r.stdout, /some checks failed; apply the fixes above\n$/);

  const json = await doctor('--manifest', file, '--root', path.join(work, 'fresh-root'), '--json');
  t.equal(json.code, 1);
  const report = JSON.parse(json.stdout) as { ok: boolean; checks: Check[] };
  t.equal(report.ok, false);
  t.match(
    report.checks.find((c) => c.name === 'api port'),
    { ok: false, detail: new RegExp(`^port ${apiPort} on 127\\.0\\.0\\.1 is already in use`), fix: /AGENTBOX_API_PORT=0/ },
  );
  t.same(
    report.checks.filter((c) => !c.ok).map((c) => c.name),
    ['api port'],
    'only that check fails',
  );
});

t.test('secrets readable by others fail with the chmod that fixes them', async (t) => {
  const root = path.join(work, 'loose-root');
  const secrets = path.join(root, 'var/lib/agentbox/secrets');
  mkdirSync(secrets, { recursive: true });
  chmodSync(secrets, 0o755);
  writeFileSync(path.join(secrets, 'api-key'), 'k\n', { mode: 0o644 });
  chmodSync(path.join(secrets, 'api-key'), 0o644);
  writeFileSync(path.join(secrets, 'identity.key'), 'k\n', { mode: 0o600 });
  const file = await manifest('perm.toml', await freePort(), await freePort());
  const r = await doctor('--manifest', file, '--root', root, '--json');
  t.equal(r.code, 1);
  const failed = (JSON.parse(r.stdout) as { checks: Check[] }).checks.filter((c) => !c.ok);
  t.same(
    failed.map((c) => [c.name, c.fix]),
    [
      ['permissions secrets', `chmod 700 ${secrets}`],
      ['permissions api-key', `chmod 600 ${path.join(secrets, 'api-key')}`],
    ],
  );
  t.match(failed[0]?.detail, 'is 755, readable by others');
});

t.test('an invalid or missing manifest fails with the command that explains it', async (t) => {
  const bad = path.join(work, 'bad.toml');
  writeFileSync(bad, '[api]\nport = "ninety"\n');
  const r = await doctor('--manifest', bad, '--root', path.join(work, 'fresh-root'));
  t.equal(r.code, 1);
  t.match(r.stdout, new RegExp(`FAIL  manifest: ${bad}: .*api\\.port.*\\n {6}fix: npx agentbox config validate ${bad}\\n`));
  const missing = await doctor('--root', path.join(work, 'fresh-root'));
  t.equal(missing.code, 1);
  t.match(missing.stdout, 'fix: npx agentbox config validate agentbox.toml (or create one: npx agentbox init)');
});
