// Generates the TypeScript type of the *normalized* manifest (every defaulted key present).
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { generatedHeader } from './header.js';

type Node = Record<string, unknown> & { properties?: Record<string, Node>; required?: string[] };

/**
 * After defaults are applied every key with a default is present, so mark those required;
 * drop keywords that sit beside a `$ref` (they would make the compiler clone the type).
 */
function normalizedShape(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (n.properties) {
    const required = new Set(n.required ?? []);
    for (const [key, child] of Object.entries(n.properties)) {
      if (child.default !== undefined) required.add(key);
      if (child.$ref) {
        for (const sibling of Object.keys(child)) if (sibling !== '$ref') delete child[sibling];
      }
    }
    n.required = [...required];
  }
  for (const value of Object.values(n)) {
    if (value && typeof value === 'object') normalizedShape(value);
  }
}

/** TypeScript source declaring `Manifest` (normalized) for the given schema. */
export async function generateManifestTypes(schema: object): Promise<string> {
  normalizedShape(schema);
  const ts = await compile({ ...(schema as JSONSchema), title: 'Manifest' }, 'Manifest', {
    bannerComment: '',
    additionalProperties: false,
    strictIndexSignatures: true,
    format: true,
    unreachableDefinitions: false,
    style: { singleQuote: true, printWidth: 110 },
  });
  return `${generatedHeader('js')}// The normalized manifest: the schema with every default applied.\n\n${ts}`;
}
