// Navigates the manifest JSON Schema by document path: which subschema describes a given key.
import schemaJson from '../../../schema/agentbox.schema.json' with { type: 'json' };
import { pointerSegments } from './diagnostics.js';

/** The parts of a JSON Schema node this project uses. */
export interface SchemaNode {
  $ref?: string;
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  /** Annotation only: sample values, shown commented out in the starter manifest. */
  examples?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  required?: string[];
  uniqueItems?: boolean;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  propertyNames?: SchemaNode;
  items?: SchemaNode;
  $defs?: Record<string, SchemaNode>;
}

/** The manifest schema, as loaded from `schema/agentbox.schema.json`. */
export const manifestSchema = schemaJson as unknown as SchemaNode;

/** Follow a local `$ref` (`#/$defs/x`), merging the referring node's own keywords over it. */
export function resolveRef(node: SchemaNode, root: SchemaNode = manifestSchema): SchemaNode {
  if (!node.$ref) return node;
  const name = node.$ref.replace(/^#\/\$defs\//, '');
  const target = root.$defs?.[name];
  if (!target) throw new Error(`schema: unresolved $ref ${node.$ref}`);
  const { $ref: _ignored, ...own } = node;
  return { ...resolveRef(target, root), ...own };
}

/** The subschema that describes the value at `pointer`, or undefined if the schema has none. */
export function schemaAt(pointer: string, root: SchemaNode = manifestSchema): SchemaNode | undefined {
  let node: SchemaNode | undefined = resolveRef(root, root);
  for (const seg of pointerSegments(pointer)) {
    if (!node) return undefined;
    node = childSchema(node, seg, root);
  }
  return node;
}

/** The subschema of one child of an object or array node. */
export function childSchema(node: SchemaNode, key: string, root: SchemaNode = manifestSchema): SchemaNode | undefined {
  const n = resolveRef(node, root);
  const prop = n.properties?.[key];
  if (prop) return resolveRef(prop, root);
  if (n.items && /^\d+$/.test(key)) return resolveRef(n.items, root);
  if (typeof n.additionalProperties === 'object') return resolveRef(n.additionalProperties, root);
  return undefined;
}
