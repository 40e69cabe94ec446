// End to end in a container: an enabled feature's security exception reaches the running
// container (its tmpfs and capability) and nothing else differs from the baseline box; and RC-10
// against the container — a GPU feature whose devices are absent keeps /ready at 503 and says why.
import t from 'tap';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { startPrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { containerProcesses, e2eSkipped, prepareBox, removeBox } from './support/compose-box.js';
import { waitFor } from '../helpers/wait.js';

const ports = (p: { api: number; metrics: number }) => `[api]\nport = ${p.api}\n\n[observability]\nmetrics_port = ${p.metrics}\n`;
const baseline = (p: { api: number; metrics: number }) => `[agentbox]\nname = "e2e-baseline"\n\n${ports(p)}`;
const withException = (p: { api: number; metrics: number }) => `[agentbox]\nname = "e2e-gpu"\n\n${ports(p)}
[security]
audit_acknowledged = true

[features]
gpu = "rocm"

[security.exceptions.gpu-rocm]
reason = "end-to-end case: the exception reaches the container; the devices are absent on purpose"
tmpfs = ["/scratch"]
cap_add = ["SYS_NICE"]
`;
// CAP_SYS_NICE is capability 23.
const SYS_NICE = 1n << 23n;

t.test('a feature exception reaches the container, and only it', { skip: e2eSkipped && 'AGENTBOX_E2E=skip', timeout: 600_000 }, async (t) => {
  const engine = await startPrivateEngine();
  t.teardown(() => engine.stop());
  const plain = await prepareBox(engine, baseline);
  t.teardown(() => removeBox(plain));
  const gpu = await prepareBox(engine, withException);
  t.teardown(() => removeBox(gpu));
  for (const box of [plain, gpu]) t.equal(box.compose('up', '-d').status, 0, `${box.project}: docker-compose up -d`);
  await waitFor(
    'both containers to run the API',
    async () => {
      for (const box of [plain, gpu]) if (!box.events().some((e) => e.event === 'ApiListening')) return false;
      return true;
    },
    90_000,
    250,
  );

  // Ports, bind paths and the project's network differ between any two boxes; everything else of
  // the host config must be the same but for what the exception adds.
  const host = (box: typeof plain) => {
    const { PortBindings: _p, Binds: _b, NetworkMode: _n, ...rest } = box.inspect()['HostConfig'] as Record<string, unknown>;
    return rest;
  };
  const a = host(plain);
  const b = host(gpu);
  const differing = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
  t.same(differing, ['CapAdd', 'Tmpfs'], 'only the capabilities and tmpfs mounts differ from the baseline box');
  t.same(b['CapAdd'], ['SYS_NICE'], "the exception's capability");
  t.same(a['CapAdd'], null, 'the baseline adds none');
  t.same(
    [a['Devices'], b['Devices']].map((d) => (d as unknown[] | null)?.length ?? 0),
    [0, 0],
    'no devices in either (the exception names none)',
  );
  t.same(Object.keys(b['Tmpfs'] as object).sort(), [...Object.keys(boxFacts.baseline.tmpfs), '/scratch'].sort(), "the baseline tmpfs plus the exception's");
  t.same(Object.keys(a['Tmpfs'] as object).sort(), Object.keys(boxFacts.baseline.tmpfs).sort(), 'the baseline tmpfs only');
  t.equal(
    gpu.inspect()['Config']['Labels']['dev.agentbox.exception.gpu-rocm'],
    'end-to-end case: the exception reaches the container; the devices are absent on purpose',
    'the audit label carries the reason',
  );
  t.notOk(
    Object.keys(plain.inspect()['Config']['Labels']).some((l) => l.startsWith('dev.agentbox.exception.')),
    'no exception label on the baseline box',
  );

  // Inside: the tmpfs is mounted and writable by the box user; the capability is in the bounding
  // set, yet no process holds it (uid 1000, no-new-privileges).
  t.match(gpu.exec('cat', '/proc/self/mountinfo'), / \/scratch rw,[^\n]* - tmpfs /, '/scratch is a tmpfs in the container');
  t.equal(gpu.exec('node', '-e', 'require("fs").writeFileSync("/scratch/x", "1"); process.stdout.write("ok")'), 'ok', '/scratch is writable by the box user');
  const bounding = (box: typeof plain) => BigInt(`0x${/^CapBnd:\s+(\S+)/m.exec(box.exec('cat', '/proc/1/status'))?.[1]}`);
  t.ok(bounding(gpu) & SYS_NICE, "CAP_SYS_NICE is in the exception box's bounding set");
  t.notOk(bounding(plain) & SYS_NICE, "and not in the baseline box's (its bounding set is empty)");
  t.equal(bounding(plain), 0n, 'the baseline bounding set is empty');
  for (const p of containerProcesses(gpu)) t.equal(p.capEff, '0000000000000000', `${p.cmd.slice(0, 50)}: still CapEff 0`);

  t.test('RC-10 in the container: a failed stage B keeps /ready at 503 and says why', async (t) => {
    const body = await waitFor(
      '/ready to name the failure',
      async () => {
        const res = await fetch(`${gpu.apiUrl}/ready`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        if (!res) return undefined;
        const json = (await res.json()) as { ready: boolean; reason?: string };
        return res.status === 503 && /bootstrap failed/.test(json.reason ?? '') ? json : undefined;
      },
      60_000,
      250,
    );
    t.match(body.reason, /features\.gpu = "rocm"/, 'the reason names what stage B could not do');
    t.ok(
      gpu.events().some((e) => e.event === 'StageBFailed'),
      'StageBFailed in the container logs',
    );
    t.equal(await fetch(`${plain.apiUrl}/ready`).then((r) => r.status), 200, 'the baseline box beside it is ready');
  });
});
