// Offline checks of generated Kubernetes objects: built-in kinds against the Kubernetes schemas
// (kubernetes-models: types, required fields, enums) and strictly (kubernetes-strict.ts: no field the
// definitions do not declare); agent-sandbox kinds against our JSON Schemas of their CRDs
// (agent-sandbox-v1beta1.schema.json, copied from the published CRDs; agent-sandbox-v1alpha1.schema.json
// for the deprecated version; unknown fields refused), with their pod template checked as a core
// Pod and strictly as a PodSpec. No cluster is needed.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { undeclaredFields } from './kubernetes-strict.js';
import { nixInstantiate } from './helpers.js';
import { SANDBOX_APIS, type SandboxApi } from '../../scripts/cli/render-box.js';

/** A generated object, as JSON. */
export type K8sObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
};

type Model = new (data: never) => { validate(): void };
const builtIn: Record<string, Model> = {
  'v1/ConfigMap': ConfigMap as unknown as Model,
  'v1/Service': Service as unknown as Model,
  'apps/v1/StatefulSet': StatefulSet as unknown as Model,
  'apps/v1/Deployment': Deployment as unknown as Model,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy as unknown as Model,
};

const ajv = new Ajv2020({ allErrors: true, strict: true });
/** The agent-sandbox kinds our schemas describe, by apiVersion/kind, with the schema file's name. */
const sandboxKinds: Record<string, { check: ValidateFunction; file: string }> = {};
// One schema file per API version the render can emit.
for (const api of SANDBOX_APIS) {
  const file = `agent-sandbox-${api}.schema.json`;
  const schema = JSON.parse(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')) as { $id: string };
  ajv.addSchema(schema);
  sandboxKinds[`agents.x-k8s.io/${api}/Sandbox`] = { check: ajv.compile({ $ref: `${schema.$id}#/$defs/Sandbox` }), file };
  sandboxKinds[`extensions.agents.x-k8s.io/${api}/SandboxTemplate`] = { check: ajv.compile({ $ref: `${schema.$id}#/$defs/SandboxTemplate` }), file };
}

/** An ajv error as "spec.operatingMode: must be equal to one of the allowed values", or "spec.warmPool: not a field of the CRD (…)". */
function describe(e: ErrorObject, file: string): string {
  const at = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((p, s) => (/^\d+$/.test(s) ? `${p}[${s}]` : p ? `${p}.${s}` : s), '');
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    return `${at ? `${at}.` : ''}${extra}: not a field of the CRD (see ${file})`;
  }
  return `${at || '(object)'}: ${e.message}`;
}

/** A pod template ({metadata, spec}) checked as a core Pod (types, required fields). */
function validatePodTemplate(template: unknown): void {
  const t = template as { metadata?: Record<string, unknown>; spec?: unknown };
  new Pod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'check', ...t.metadata }, spec: t.spec } as never).validate();
}

/** Throws, naming the object and the path of the offending field, when `o` is not a valid object of its kind. */
export function validateObject(o: K8sObject): void {
  const key = `${o.apiVersion}/${o.kind}`;
  const where = `${o.kind} ${o.metadata?.name}`;
  const model = builtIn[key];
  if (model) {
    new model(o as never).validate();
    const extra = undeclaredFields(key, o);
    if (extra.length) throw new Error(`${where}: ${extra.join('; ')}`);
    return;
  }
  const sandbox = sandboxKinds[key];
  if (!sandbox) throw new Error(`${where}: no schema for ${key}`);
  if (!sandbox.check(o)) throw new Error(`${where}: ${(sandbox.check.errors ?? []).map((e) => describe(e, sandbox.file)).join('; ')}`);
  const spec = o.spec as { podTemplate: { spec: unknown }; volumeClaimTemplates?: Array<{ metadata: { name: string }; spec: unknown }> };
  validatePodTemplate(spec.podTemplate);
  const extra = undeclaredFields('PodSpec', spec.podTemplate.spec, 'spec.podTemplate.spec');
  (spec.volumeClaimTemplates ?? []).forEach((c, i) => {
    new PersistentVolumeClaim({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: c.metadata.name }, spec: c.spec } as never).validate();
    extra.push(...undeclaredFields('PersistentVolumeClaimSpec', c.spec, `spec.volumeClaimTemplates[${i}].spec`));
  });
  if (extra.length) throw new Error(`${where}: ${extra.join('; ')}`);
}

/** What one evaluation of lib/box.nix gives for a fixture: the compose service and the objects. */
export interface BoxObjects {
  service: Record<string, unknown>;
  objects: { kubernetes: K8sObject[]; 'agent-sandbox': K8sObject[] };
  sha: string;
}

/** The compose service and the Kubernetes objects of a manifest file, from one evaluation. */
export function boxObjects(manifestFile: string, replicas = 2, sandboxApi: SandboxApi = 'v1beta1'): BoxObjects {
  const r = nixInstantiate(
    `{ file, replicas, sandboxApi }: let b = (import ./lib).renderBox { manifestText = builtins.readFile file; replicas = builtins.fromJSON replicas; inherit sandboxApi; }; in { service = b.compose.services.agentbox; inherit (b) objects; sha = b.manifestSha256; }`,
    { file: manifestFile, replicas: String(replicas), sandboxApi },
  );
  if (r.code !== 0) throw new Error(`lib/box.nix failed for ${manifestFile}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as BoxObjects;
}
