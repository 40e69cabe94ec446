// The strict check of generated Kubernetes objects: every property must be one the Kubernetes
// definitions declare for its place. kubernetes-models' validators (compiled from the OpenAPI
// definitions) accept unknown properties, so a misspelt field would pass them and be dropped by
// the API server; the package also ships the same definitions as TypeScript declarations, which
// this walks with the TypeScript checker, object by object, naming the path of the first stranger.
import ts from 'typescript';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The declaration file and interface of each kind (and of the core types the CRDs embed). */
const definitions: Record<string, { file: string; name: string }> = {
  'v1/ConfigMap': { file: 'kubernetes-models/v1/ConfigMap', name: 'IConfigMap' },
  'v1/Service': { file: 'kubernetes-models/v1/Service', name: 'IService' },
  'apps/v1/StatefulSet': { file: 'kubernetes-models/apps/v1/StatefulSet', name: 'IStatefulSet' },
  'apps/v1/Deployment': { file: 'kubernetes-models/apps/v1/Deployment', name: 'IDeployment' },
  'networking.k8s.io/v1/NetworkPolicy': { file: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy', name: 'INetworkPolicy' },
  PodSpec: { file: 'kubernetes-models/v1/PodSpec', name: 'IPodSpec' },
  PersistentVolumeClaimSpec: { file: 'kubernetes-models/v1/PersistentVolumeClaimSpec', name: 'IPersistentVolumeClaimSpec' },
};

/** The declaration file beside the module `specifier` resolves to (the package's exports name no .d.ts). */
const declarationFile = (specifier: string): string => require.resolve(specifier).replace(/\.[cm]?js$/, '.d.ts');

let loaded: { checker: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;

/** One program over the declaration files (built once: a few hundred small files). */
function load(): { checker: ts.TypeChecker; types: Map<string, ts.Type> } {
  if (loaded) return loaded;
  const files = Object.values(definitions).map((d) => declarationFile(d.file));
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, types: [], moduleResolution: ts.ModuleResolutionKind.Node10 });
  const checker = program.getTypeChecker();
  const types = new Map<string, ts.Type>();
  for (const [kind, d] of Object.entries(definitions)) {
    const source = program.getSourceFile(declarationFile(d.file));
    const decl = source?.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === d.name);
    if (!decl) throw new Error(`kubernetes-strict: ${d.file} declares no ${d.name}`);
    types.set(kind, checker.getTypeAtLocation(decl));
  }
  loaded = { checker, types };
  return loaded;
}

/** The object types a value may take at a place typed `type` (null and undefined left out). */
function objectMembers(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  const t = checker.getNonNullableType(type);
  const members = t.isUnion() ? t.types : [t];
  return members.filter((m) => (m.flags & ts.TypeFlags.Object) !== 0);
}

/** Paths of properties of `value` that `type` does not declare (depth first, all of them). */
function strangers(checker: ts.TypeChecker, value: unknown, type: ts.Type, path: string): string[] {
  if (value === null || typeof value !== 'object') return [];
  const t = checker.getNonNullableType(type);
  if (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return [];
  if (Array.isArray(value)) {
    const element = checker.getIndexTypeOfType(t, ts.IndexKind.Number);
    if (!element) return [`${path}: a list where the definitions have no list`];
    return value.flatMap((v, i) => strangers(checker, v, element, `${path}[${i}]`));
  }
  const candidates = objectMembers(checker, t);
  if (candidates.length === 0) return [`${path}: an object where the definitions have ${checker.typeToString(t)}`];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const at = path === '' ? key : `${path}.${key}`;
    const declaring = candidates.find((c) => c.getProperty(key) ?? checker.getIndexInfoOfType(c, ts.IndexKind.String));
    if (!declaring) {
      out.push(`${at}: not a field of ${checker.typeToString(candidates[0]!)}`);
      continue;
    }
    const prop = declaring.getProperty(key);
    const propType = prop ? checker.getTypeOfSymbol(prop) : checker.getIndexInfoOfType(declaring, ts.IndexKind.String)!.type;
    out.push(...strangers(checker, v, propType, at));
  }
  return out;
}

/**
 * The properties of `value` that the Kubernetes definitions of `kind` ("apps/v1/StatefulSet",
 * or "PodSpec", "PersistentVolumeClaimSpec" for the parts a CRD embeds) do not declare, each as
 * its path from `path` ("spec.template.spec.containers[0].securityContext.foo: not a field of …").
 */
export function undeclaredFields(kind: string, value: unknown, path = ''): string[] {
  const { checker, types } = load();
  const type = types.get(kind);
  if (!type) throw new Error(`kubernetes-strict: no definitions for ${kind}`);
  return strangers(checker, value, type, path);
}

/** The kinds (apiVersion/kind) the strict check knows. */
export const strictKinds = Object.keys(definitions).filter((k) => k.includes('/'));
