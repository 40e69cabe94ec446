// Offline checks of generated Kubernetes objects: built-in kinds against the Kubernetes schemas
// (kubernetes-models), agent-sandbox kinds against the fields of the published v1alpha1 CRDs with
// their pod template checked as a core Pod. No cluster is needed.
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { nixInstantiate } from './helpers.js';

/** A generated object, as JSON. */
export type K8sObject = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };

type Model = new (data: never) => { validate(): void };
const builtIn: Record<string, Model> = {
  'v1/ConfigMap': ConfigMap as unknown as Model,
  'v1/Service': Service as unknown as Model,
  'apps/v1/StatefulSet': StatefulSet as unknown as Model,
  'apps/v1/Deployment': Deployment as unknown as Model,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy as unknown as Model,
};

/**
 * The spec fields of the agent-sandbox v1alpha1 CRDs (kubernetes-sigs/agent-sandbox
 * k8s/crds/agents.x-k8s.io_sandboxes.yaml and extensions.agents.x-k8s.io_sandboxtemplates.yaml):
 * the fields outside the embedded pod spec, which is a core PodSpec.
 */
const sandboxCrds: Record<string, { fields: string[]; required: string[] }> = {
  'agents.x-k8s.io/v1alpha1/Sandbox': { fields: ['podTemplate', 'replicas', 'shutdownPolicy', 'shutdownTime', 'volumeClaimTemplates'], required: ['podTemplate'] },
  'extensions.agents.x-k8s.io/v1alpha1/SandboxTemplate': { fields: ['podTemplate'], required: ['podTemplate'] },
};

/** A pod template ({metadata, spec}) checked as a core Pod. */
function validatePodTemplate(template: unknown, where: string): void {
  const t = template as { metadata?: Record<string, unknown>; spec?: unknown };
  const metaKeys = Object.keys(t.metadata ?? {}).filter((k) => k !== 'labels' && k !== 'annotations');
  if (metaKeys.length) throw new Error(`${where}: podTemplate.metadata has ${metaKeys.join(', ')} (the CRD keeps labels and annotations only)`);
  new Pod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'check', ...t.metadata }, spec: t.spec } as never).validate();
}

/** Throws, naming the object and the offending field, when `o` is not a valid object of its kind. */
export function validateObject(o: K8sObject): void {
  const key = `${o.apiVersion}/${o.kind}`;
  const where = `${o.kind} ${o.metadata?.name}`;
  const model = builtIn[key];
  if (model) {
    new model(o as never).validate();
    return;
  }
  const crd = sandboxCrds[key];
  if (!crd) throw new Error(`${where}: no schema for ${key}`);
  const spec = o.spec ?? {};
  const unknown = Object.keys(spec).filter((k) => !crd.fields.includes(k));
  if (unknown.length) throw new Error(`${where}: spec.${unknown[0]} is not a field of the ${o.kind} CRD`);
  for (const r of crd.required) if (!(r in spec)) throw new Error(`${where}: spec.${r} is required`);
  validatePodTemplate(spec['podTemplate'], where);
  const replicas = spec['replicas'];
  if (replicas !== undefined && (!Number.isInteger(replicas) || (replicas as number) < 0 || (replicas as number) > 1)) throw new Error(`${where}: spec.replicas must be 0 or 1`);
  for (const c of (spec['volumeClaimTemplates'] as Array<{ metadata?: { name?: string }; spec: unknown }> | undefined) ?? []) {
    new PersistentVolumeClaim({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: c.metadata?.name ?? 'claim' }, spec: c.spec } as never).validate();
  }
}

/** What one evaluation of lib/box.nix gives for a fixture: the compose service and the objects. */
export interface BoxObjects {
  service: Record<string, unknown>;
  objects: { kubernetes: K8sObject[]; 'agent-sandbox': K8sObject[] };
  sha: string;
}

/** The compose service and the Kubernetes objects of a manifest file, from one evaluation. */
export function boxObjects(manifestFile: string, replicas = 2): BoxObjects {
  const r = nixInstantiate(
    `{ file, replicas }: let b = (import ./lib).renderBox { manifestText = builtins.readFile file; replicas = builtins.fromJSON replicas; }; in { service = b.compose.services.agentbox; inherit (b) objects; sha = b.manifestSha256; }`,
    { file: manifestFile, replicas: String(replicas) },
  );
  if (r.code !== 0) throw new Error(`lib/box.nix failed for ${manifestFile}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as BoxObjects;
}
