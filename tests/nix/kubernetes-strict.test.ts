// The strict checks refuse any field the definitions do not declare, naming its path: built-in
// kinds against the Kubernetes definitions (which kubernetes-models' own validation lets through),
// agent-sandbox kinds against our schema of the CRD fields, their pod and claim specs against the
// core definitions. Each generated object of each kind gets a stranger at a nested place.
import t from 'tap';
import path from 'node:path';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { boxObjects, validateObject, type K8sObject } from './kubernetes-objects.js';
import { undeclaredFields } from './kubernetes-strict.js';
import { repoRoot } from './helpers.js';

const fixture = (name: string) => path.join(repoRoot, 'tests/fixtures/manifests', `${name}.toml`);
// Edits reach deep into generated objects whose shape the checks under test are about.
type Json = Record<string, unknown>;
/** The object at `keys` under `o` (a number: an index in a list), for an edit to write into. */
const at = (o: Json, ...keys: Array<string | number>): Json => keys.reduce<Json>((v, k) => v[k] as Json, o);

/** A copy of `o` with `edit` applied to it. */
const edited = (o: K8sObject, edit: (c: Json) => void): K8sObject => {
  const c = structuredClone(o) as Json;
  edit(c);
  return c as K8sObject;
};

const reference = boxObjects(fixture('reference')).objects;
const meshHost = boxObjects(fixture('mesh-host')).objects;
const byKind = (objects: K8sObject[], kind: string) => objects.find((o) => o.kind === kind)!;

t.test('kubernetes-models alone lets an unknown field through; the strict check does not', async (t) => {
  const sts = edited(
    byKind(reference.kubernetes, 'StatefulSet'),
    (c) => (at(c, 'spec', 'template', 'spec', 'containers', 0, 'securityContext')['runAsUsr'] = 1000),
  );
  t.doesNotThrow(() => new StatefulSet(sts as never).validate(), 'the compiled OpenAPI validator accepts it');
  t.throws(
    () => validateObject(sts),
    /StatefulSet agentbox: spec\.template\.spec\.containers\[0\]\.securityContext\.runAsUsr: not a field of ISecurityContext/,
  );
  t.same(undeclaredFields('apps/v1/StatefulSet', byKind(reference.kubernetes, 'StatefulSet')), [], 'the generated object has none');
});

t.test('a stranger at a nested place of every kind is refused with its path', async (t) => {
  const cases: Array<[K8sObject, (c: Json) => void, RegExp]> = [
    [
      byKind(reference.kubernetes, 'ConfigMap'),
      (c) => (at(c, 'metadata')['annotation'] = {}),
      /ConfigMap agentbox-manifest: metadata\.annotation: not a field of IObjectMeta/,
    ],
    [
      byKind(reference.kubernetes, 'Service'),
      (c) => (at(c, 'spec', 'ports', 1)['targetPorts'] = 'x'),
      /Service agentbox: spec\.ports\[1\]\.targetPorts: not a field of IServicePort/,
    ],
    [
      byKind(reference.kubernetes, 'StatefulSet'),
      (c) => (at(c, 'spec', 'volumeClaimTemplates', 0, 'spec', 'resources')['request'] = {}),
      /spec\.volumeClaimTemplates\[0\]\.spec\.resources\.request: not a field/,
    ],
    [
      byKind(reference.kubernetes, 'StatefulSet'),
      (c) => (at((at(c, 'spec', 'template', 'spec')['volumes'] as Json[]).find((v) => v['configMap'])!, 'configMap')['nam'] = 'x'),
      /spec\.template\.spec\.volumes\[\d+\]\.configMap\.nam: not a field of IConfigMapVolumeSource/,
    ],
    [
      byKind(meshHost.kubernetes, 'Deployment'),
      (c) => (at(c, 'spec', 'template', 'spec', 'containers', 0, 'env', 0, 'valueFrom', 'fieldRef')['path'] = 'x'),
      /Deployment mesh-host: spec\.template\.spec\.containers\[0\]\.env\[0\]\.valueFrom\.fieldRef\.path: not a field of IObjectFieldSelector/,
    ],
    [
      byKind(reference.kubernetes, 'NetworkPolicy'),
      (c) => (at(c, 'spec', 'ingress', 0)['port'] = 1),
      /NetworkPolicy agentbox: spec\.ingress\[0\]\.port: not a field of INetworkPolicyIngressRule/,
    ],
    [
      byKind(reference['agent-sandbox'], 'Sandbox'),
      (c) => (at(c, 'spec', 'podTemplate', 'metadata')['name'] = 'x'),
      /Sandbox agentbox: spec\.podTemplate\.metadata\.name: not a field of the CRD/,
    ],
    [
      byKind(reference['agent-sandbox'], 'Sandbox'),
      (c) => (at(c, 'spec', 'volumeClaimTemplates', 0, 'spec')['storageClass'] = 'x'),
      /spec\.volumeClaimTemplates\[0\]\.spec\.storageClass: not a field of the CRD/,
    ],
    [
      byKind(reference['agent-sandbox'], 'Sandbox'),
      (c) => (at(c, 'spec', 'podTemplate', 'spec', 'containers', 0, 'startupProbe', 'httpGet')['paths'] = '/'),
      /Sandbox agentbox: spec\.podTemplate\.spec\.containers\[0\]\.startupProbe\.httpGet\.paths: not a field of IHTTPGetAction/,
    ],
    [
      byKind(reference['agent-sandbox'], 'SandboxTemplate'),
      (c) => (at(c, 'spec')['warmPool'] = { replicas: 1 }),
      /SandboxTemplate agentbox: spec\.warmPool: not a field of the CRD/,
    ],
    [
      byKind(reference['agent-sandbox'], 'SandboxTemplate'),
      (c) => (at(c, 'metadata')['name'] = 'x'.repeat(64)),
      /SandboxTemplate x{64}: metadata\.name: must NOT have more than 63 characters/,
    ],
  ];
  for (const [o, edit, message] of cases) {
    t.doesNotThrow(() => validateObject(o), `${o.kind}: the generated object passes`);
    t.throws(() => validateObject(edited(o, edit)), message, String(message));
  }
});

t.test('label and limit maps take any key; a list where an object belongs is refused', async (t) => {
  const sts = byKind(reference.kubernetes, 'StatefulSet');
  t.doesNotThrow(
    () => validateObject(edited(sts, (c) => (at(c, 'spec', 'template', 'spec', 'containers', 0, 'resources', 'limits')['nvidia.com/gpu'] = 1))),
    'a device plugin resource',
  );
  t.doesNotThrow(() => validateObject(edited(sts, (c) => (at(c, 'metadata', 'labels')['example.com/team'] = 'a'))), 'a label');
  t.same(
    undeclaredFields(
      'apps/v1/StatefulSet',
      edited(sts, (c) => (at(c, 'spec')['selector'] = [1])),
    ),
    ['spec.selector: a list where the definitions have no list'],
  );
});
