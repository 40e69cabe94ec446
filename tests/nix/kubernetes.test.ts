// The Kubernetes and agent-sandbox objects of every fixture: valid offline against the Kubernetes
// schemas, strictly (no undeclared field), and the agent-sandbox CRD fields (v1beta1 by default,
// v1alpha1 on request); the pod's security settings, ports, variables,
// probes, tmpfs and limits equal to the compose service's (one source), the manifest sha256 in
// labels and annotations, and the mesh host on Postgres as a Deployment of replicas.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { goldenFixtures } from '../../scripts/cli/render-golden.js';
import { boxObjects, validateObject, type K8sObject } from './kubernetes-objects.js';
import { nixInstantiate, repoRoot } from './helpers.js';

const fixture = (name: string) => path.join(repoRoot, 'tests/fixtures/manifests', `${name}.toml`);
const ctx = { targetArch: 'x86_64' as const, env: {}, target: 'kubernetes' as const };

interface Container {
  securityContext: {
    runAsUser: number;
    runAsGroup: number;
    readOnlyRootFilesystem: boolean;
    allowPrivilegeEscalation: boolean;
    capabilities: { drop: string[]; add?: string[] };
    seccompProfile: { type: string };
  };
  ports: Array<{ containerPort: number }>;
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; fieldRef?: { fieldPath: string } };
  }>;
  readinessProbe: { httpGet: { path: string; port: string }; periodSeconds: number; timeoutSeconds: number; failureThreshold: number };
  livenessProbe: { httpGet: { path: string } };
  startupProbe: { periodSeconds: number; failureThreshold: number };
  resources: { limits: Record<string, string | number> };
  volumeMounts: Array<{ name: string; mountPath: string }>;
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations: Record<string, string> };
  spec: { containers: Container[]; volumes: Array<{ name: string; emptyDir?: { medium?: string; sizeLimit?: string } }> };
}

/** Every pod template among `objects` (workloads and sandboxes), with where it was found. */
function podTemplates(objects: K8sObject[]): Array<[string, PodTemplate]> {
  return objects.flatMap((o) => {
    const spec = o.spec ?? {};
    const tpl = (spec['template'] ?? spec['podTemplate']) as PodTemplate | undefined;
    return tpl ? [[`${o.kind} ${o.metadata.name}`, tpl] as [string, PodTemplate]] : [];
  });
}

const unescapeDollars = (s: string) => s.replaceAll('$$', '$');
const composeSize = (options: string) => /(?:^|,)size=([0-9]+)([kmg]?)/.exec(options);

t.test('every object of every fixture validates offline', async (t) => {
  for (const name of await goldenFixtures()) {
    const { objects } = boxObjects(fixture(name));
    for (const target of ['kubernetes', 'agent-sandbox'] as const) {
      t.ok(objects[target].length >= 4, `${name}/${target}: objects rendered`);
      for (const o of objects[target]) t.doesNotThrow(() => validateObject(o), `${name}/${target}: ${o.kind} ${o.metadata.name}`);
    }
  }
});

t.test('the offline check can fail: a wrong type, a field the CRD lacks, v1alpha1 replicas under v1beta1, a Sandbox of two', async (t) => {
  const { objects } = boxObjects(fixture('reference'));
  const sts = structuredClone(objects.kubernetes.find((o) => o.kind === 'StatefulSet')!);
  ((sts.spec!['template'] as PodTemplate).spec.containers[0]!.ports[0] as { containerPort: unknown }).containerPort = 'api';
  t.throws(() => validateObject(sts), /containerPort must be integer/);
  const sandbox = objects['agent-sandbox'].find((o) => o.kind === 'Sandbox')!;
  t.throws(
    () => validateObject({ ...sandbox, spec: { ...sandbox.spec, replicas: 1 } }),
    /Sandbox agentbox: spec\.replicas: not a field of the CRD \(see agent-sandbox-v1beta1\.schema\.json\)/,
  );
  t.throws(
    () => validateObject({ ...sandbox, spec: { ...sandbox.spec, operatingMode: 'Paused' } }),
    /spec\.operatingMode: must be equal to one of the allowed values/,
  );
  t.throws(() => validateObject({ ...sandbox, spec: { ...sandbox.spec, service: 'yes' } }), /spec\.service: must be boolean/);
  t.throws(() => validateObject({ ...sandbox, spec: { ...sandbox.spec, warmPool: 1 } }), /spec\.warmPool: not a field of the CRD/);
  t.throws(() => validateObject({ ...sandbox, kind: 'SandboxClaim' }), /no schema/);
  const alpha = boxObjects(fixture('reference'), 2, 'v1alpha1').objects['agent-sandbox'].find((o) => o.kind === 'Sandbox')!;
  t.throws(() => validateObject({ ...alpha, spec: { ...alpha.spec, replicas: 2 } }), /Sandbox agentbox: spec\.replicas: must be <= 1/);
  t.throws(
    () => validateObject({ ...alpha, spec: { ...alpha.spec, operatingMode: 'Running' } }),
    /spec\.operatingMode: not a field of the CRD \(see agent-sandbox-v1alpha1\.schema\.json\)/,
  );
});

t.test('agent-sandbox v1beta1 by default: the Sandbox runs through operatingMode and asks for its Service; v1alpha1 on request', async (t) => {
  const beta = boxObjects(fixture('reference')).objects['agent-sandbox'];
  const alpha = boxObjects(fixture('reference'), 2, 'v1alpha1').objects['agent-sandbox'];
  const kinds = (objects: K8sObject[]) => objects.map((o) => `${o.apiVersion}/${o.kind}`);
  t.same(kinds(beta), [
    'v1/ConfigMap',
    'networking.k8s.io/v1/NetworkPolicy',
    'extensions.agents.x-k8s.io/v1beta1/SandboxTemplate',
    'agents.x-k8s.io/v1beta1/Sandbox',
  ]);
  t.same(kinds(alpha), [
    'v1/ConfigMap',
    'networking.k8s.io/v1/NetworkPolicy',
    'extensions.agents.x-k8s.io/v1alpha1/SandboxTemplate',
    'agents.x-k8s.io/v1alpha1/Sandbox',
  ]);
  const [betaSandbox, alphaSandbox] = [beta, alpha].map((objects) => objects.find((o) => o.kind === 'Sandbox')!.spec!);
  const { operatingMode, service, ...betaRest } = betaSandbox!;
  t.equal(operatingMode, 'Running', 'v1beta1: running, suspended by setting Suspended');
  t.equal(service, true, 'v1beta1: the controller makes the headless Service the pod advertises only when asked');
  t.notOk('replicas' in betaSandbox!, 'v1beta1 has no replicas');
  const { replicas, ...alphaRest } = alphaSandbox!;
  t.equal(replicas, 1, 'v1alpha1: running is one replica');
  t.same(betaRest, alphaRest, 'the pod and its claims are the same in both versions');
  t.same(beta.find((o) => o.kind === 'SandboxTemplate')!.spec, alpha.find((o) => o.kind === 'SandboxTemplate')!.spec, 'so is the template');
  for (const o of alpha) t.doesNotThrow(() => validateObject(o), `v1alpha1 ${o.kind} validates`);
  const bad = nixInstantiate(
    `let lib = import ./lib; in lib.agentSandboxObjects { manifest = lib.loadManifest { text = ""; }; manifestText = ""; image = "x:y"; sandboxApi = "v1"; }`,
  );
  t.not(bad.code, 0);
  t.match(bad.stderr, /agent-sandbox\.agentSandboxObjects: sandboxApi must be "v1beta1" or "v1alpha1", not "v1"/);
});

t.test("the pod's security, ports, variables, probes, tmpfs and limits are the compose service's", async (t) => {
  for (const name of await goldenFixtures()) {
    const { service, objects } = boxObjects(fixture(name));
    const s = service as Record<string, unknown> & {
      tmpfs: string[];
      ports: string[];
      healthcheck: { test: string[]; interval: string; timeout: string; retries: number; start_period: string };
      labels: Record<string, string>;
    };
    for (const [where, pod] of podTemplates([...objects.kubernetes, ...objects['agent-sandbox']])) {
      const c = pod.spec.containers[0]!;
      const sc = c.securityContext;
      const at = `${name}: ${where}`;
      t.equal(`${sc.runAsUser}:${sc.runAsGroup}`, s['user'], `${at}: user`);
      t.equal(sc.readOnlyRootFilesystem, s['read_only'], `${at}: read-only root`);
      t.same(sc.capabilities.drop, s['cap_drop'], `${at}: dropped capabilities`);
      t.same(sc.capabilities.add ?? [], s['cap_add'] ?? [], `${at}: added capabilities`);
      t.equal(sc.allowPrivilegeEscalation, !(s['security_opt'] as string[]).includes('no-new-privileges:true'), `${at}: no privilege escalation`);
      t.same(
        c.ports.map((p) => p.containerPort),
        s.ports.map((p) => Number(p.split(':').at(-1))),
        `${at}: ports`,
      );
      // The variables from the Secret are compose's; the pod adds its own address (kubernetes-advertise.test.ts).
      t.same(
        (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name),
        s['environment'] ?? [],
        `${at}: variables`,
      );
      const ready = new URL(/fetch\('([^']+)'\)/.exec(s.healthcheck.test[3]!)![1]!);
      t.equal(c.readinessProbe.httpGet.path, ready.pathname, `${at}: readiness path`);
      t.equal(c.livenessProbe.httpGet.path, '/livez', `${at}: liveness path`);
      t.equal(c.ports.find((p) => p.containerPort === Number(ready.port)) !== undefined, true, `${at}: the probe's port is the API's`);
      t.equal(`${c.readinessProbe.periodSeconds}s`, s.healthcheck.interval, `${at}: interval`);
      t.equal(`${c.readinessProbe.timeoutSeconds}s`, s.healthcheck.timeout, `${at}: timeout`);
      t.equal(c.readinessProbe.failureThreshold, s.healthcheck.retries, `${at}: retries`);
      const startup = c.startupProbe.periodSeconds * c.startupProbe.failureThreshold;
      t.ok(
        startup >= parseInt(s.healthcheck.start_period, 10) && startup < parseInt(s.healthcheck.start_period, 10) + c.startupProbe.periodSeconds,
        `${at}: startup budget ${startup}s = start_period ${s.healthcheck.start_period}`,
      );
      t.equal(c.resources.limits['memory'], `${String(s['mem_limit']).replace(/[kmg]$/, (u) => `${u.toUpperCase()}i`)}`, `${at}: memory`);
      t.equal(Number(c.resources.limits['cpu']), s['cpus'], `${at}: cpus`);
      const memoryVolumes = new Map(pod.spec.volumes.filter((v) => v.emptyDir?.medium === 'Memory').map((v) => [v.name, v.emptyDir!.sizeLimit]));
      const tmpfs = c.volumeMounts.filter((m) => memoryVolumes.has(m.name)).map((m) => [m.mountPath, memoryVolumes.get(m.name)]);
      const composeTmpfs = s.tmpfs.map((spec) => {
        const [p, ...rest] = spec.split(':');
        const size = composeSize(rest.join(':'));
        return [p, size ? `${size[1]}${size[2] ? `${size[2].toUpperCase()}i` : ''}` : undefined];
      });
      t.same(tmpfs.sort(), composeTmpfs.sort(), `${at}: tmpfs paths and sizes`);
      // The sandbox-namespaces exception has no Kubernetes form (rule W019): the pod neither
      // applies it (RuntimeDefault seccomp) nor claims it in an annotation.
      const namespacesLabel = 'dev.agentbox.exception.sandbox-namespaces';
      for (const [k, v] of Object.entries(s.labels)) {
        if (k === namespacesLabel) t.notOk(k in pod.metadata.annotations, `${at}: no ${k} annotation (not applied to a pod)`);
        else t.equal(pod.metadata.annotations[k], unescapeDollars(v), `${at}: annotation ${k}`);
      }
      if (s.labels[namespacesLabel] !== undefined) t.equal(sc.seccompProfile.type, 'RuntimeDefault', `${at}: the pod keeps RuntimeDefault`);
    }
  }
});

t.test('the manifest sha256 of the TypeScript loader is in the labels and annotations', async (t) => {
  for (const name of await goldenFixtures()) {
    const { sha, objects } = boxObjects(fixture(name));
    const loaded = await loadManifestSource(readFileSync(fixture(name), 'utf8'), ctx);
    t.equal(sha, loaded.sha256, `${name}: both normalizations agree`);
    for (const o of [...objects.kubernetes, ...objects['agent-sandbox']])
      t.equal(o.metadata.labels?.['dev.agentbox/manifest-sha256'], sha.slice(0, 12), `${name}: ${o.kind} label`);
    for (const [where, pod] of podTemplates(objects.kubernetes)) {
      t.equal(pod.metadata.annotations['dev.agentbox.manifest.sha256'], sha, `${name}: ${where} annotation`);
      t.equal(pod.metadata.labels['dev.agentbox/manifest-sha256'], sha.slice(0, 12), `${name}: ${where} pod label (a new manifest rolls the pods)`);
    }
  }
});

t.test('a box is a StatefulSet of one; a mesh host on Postgres is a Deployment of replicas behind one Service', async (t) => {
  const box = boxObjects(fixture('reference')).objects.kubernetes;
  t.same(
    box.map((o) => o.kind),
    ['ConfigMap', 'Service', 'Service', 'StatefulSet', 'NetworkPolicy'],
  );
  const sts = box.find((o) => o.kind === 'StatefulSet')!;
  t.equal(sts.spec!['replicas'], 1);
  t.same(
    (sts.spec!['volumeClaimTemplates'] as Array<{ metadata: { name: string } }>).map((c) => c.metadata.name),
    ['state', 'workspace'],
  );
  const host = boxObjects(fixture('mesh-host'), 3).objects.kubernetes;
  t.same(
    host.map((o) => o.kind),
    ['ConfigMap', 'Service', 'Deployment', 'NetworkPolicy'],
  );
  const deployment = host.find((o) => o.kind === 'Deployment')!;
  t.equal(deployment.spec!['replicas'], 3);
  const env = (deployment.spec!['template'] as PodTemplate).spec.containers[0]!.env!;
  const secretEnv = env.flatMap((e) => (e.valueFrom?.secretKeyRef ? [[e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.optional]] : []));
  t.same(secretEnv, [['AGENTBOX_MESH_PG_URL', 'mesh-host-env', false]], 'the registry connection comes from the Secret, and must be there');
  const svc = host.find((o) => o.kind === 'Service')!;
  t.same(svc.spec!['selector'], (deployment.spec!['selector'] as { matchLabels: unknown }).matchLabels, 'the one Service selects every replica');
  const policy = host.find((o) => o.kind === 'NetworkPolicy')!;
  t.same(
    (policy.spec!['ingress'] as Array<{ ports: Array<{ port: number }> }>)[0]!.ports.map((p) => p.port),
    [9090, 9091],
    'ingress admits the API and metrics only',
  );
});
