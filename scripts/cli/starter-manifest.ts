// The commented starter manifest written by `agentbox init`, generated from the schema: every key
// with its description and its schema default, so no default is written twice. The reference
// agentbox.toml is this text for standalone mode (kept identical by `npm run generate`).
import { FLOATING_PORT_KEYS } from '../../management-api/src/box-ports.js';
import { manifestSchema, resolveRef, type SchemaNode } from '../../management-api/src/manifest/schema-walk.js';

/** Mesh modes a starter can be written for. */
export type StarterMode = 'standalone' | 'client' | 'host';

/** Options of the starter text. */
export interface StarterOptions {
  mode: StarterMode;
  /** Value of `#:schema` (a path or URL to agentbox.schema.json) for TOML editors. */
  schemaRef: string;
  /** mesh.host_url for client mode (default: the API on this host at its default port). */
  hostUrl?: string;
  /** The manifest schema (default: schema/agentbox.schema.json). */
  schema?: object;
}

/** Comment lines are wrapped to this width. */
const WIDTH = 100;

/**
 * The starter manifest text for `options`. Every key the schema gives a default is written with
 * that default (the mode's mesh keys excepted), so the standalone starter means the same as an
 * empty manifest; maps and optional tables are shown as commented schema examples. It validates
 * with no errors or warnings.
 */
export function starterManifest(options: StarterOptions): string {
  const root = (options.schema ?? manifestSchema) as SchemaNode;
  const apiPort = resolveRef(root.properties!['api']!, root).properties!['port']!.default;
  const overrides = new Map<string, unknown>([['mesh.mode', options.mode]]);
  if (options.mode === 'client') overrides.set('mesh.host_url', options.hostUrl ?? `http://127.0.0.1:${String(apiPort)}`);
  const out = [
    `#:schema ${options.schemaRef}`,
    ...comment(`agentbox.toml — ${root.description ?? ''}`),
    ...comment(
      'Generated from schema/agentbox.schema.json: every key below shows its default, and deleting a key means the same. Check this file with `npx agentbox config validate`; see every resolved value with `npx agentbox config show`.',
    ),
  ];
  for (const [name, node] of Object.entries(root.properties ?? {})) section(out, [name], resolveRef(node, root), root, overrides);
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** Write the table at `path`: its description, header and keys, then its sub-tables and maps. */
function table(out: string[], path: string[], node: SchemaNode, root: SchemaNode, overrides: Map<string, unknown>): void {
  const name = path.join('.');
  const children = Object.entries(node.properties ?? {}).map(([key, raw]): [string, SchemaNode] => [key, resolveRef(raw, root)]);
  const keys = children.filter(([, n]) => n.type !== 'object');
  // A table of sub-tables only ([integrations]) needs no header: its sub-tables' headers make it.
  out.push('', ...comment(node.description ?? ''), ...(keys.length ? [`[${name}]`] : []));
  for (const [key, child] of keys) {
    const at = `${name}.${key}`;
    const value = overrides.has(at) ? overrides.get(at) : child.default;
    if (value === undefined) continue;
    // A port left out floats (box-ports.ts): written commented, so a second box can start beside the first.
    if ((FLOATING_PORT_KEYS as readonly string[]).includes(at))
      out.push(
        ...comment(
          `${child.description ?? ''} Left out: ${tomlValue(value)}, or in local mode a free port when ${tomlValue(value)} is taken (agentbox up says which); set it to require exactly this port.`,
        ),
        `# ${key} = ${tomlValue(value)}`,
      );
    else out.push(...comment(child.description ?? ''), `${key} = ${tomlValue(value)}`);
  }
  for (const [key, child] of children.filter(([, n]) => n.type === 'object')) section(out, [...path, key], child, root, overrides);
}

/**
 * A table-valued key: a table of defaults is written out; a map (keyed by the operator's names)
 * or a table whose entries have no defaults is shown as its commented examples; a table the
 * schema gives no default (one feature's exception) is absent until declared, so left out.
 */
function section(out: string[], path: string[], node: SchemaNode, root: SchemaNode, overrides: Map<string, unknown>): void {
  if (node.default === undefined) return;
  const entries = Object.values(node.properties ?? {}).map((p) => resolveRef(p, root));
  if (typeof node.additionalProperties === 'object' || entries.every((p) => p.default === undefined)) example(out, path.join('.'), node);
  else table(out, path, node, root, overrides);
}

/** A map or optional table: its description and its schema examples, commented out. */
function example(out: string[], name: string, node: SchemaNode): void {
  out.push('', ...comment(node.description ?? ''));
  for (const sample of node.examples ?? []) {
    for (const [entry, value] of Object.entries(sample as Record<string, Record<string, unknown>>)) {
      out.push(`# [${name}.${entry}]`, ...Object.entries(value).map(([k, v]) => `# ${k} = ${tomlValue(v)}`));
    }
  }
}

/** A JSON value (from the schema) as TOML. */
export function tomlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length ? `{ ${entries.map(([k, v]) => `${k} = ${tomlValue(v)}`).join(', ')} }` : '{}';
  }
  // JSON strings, numbers and booleans are TOML as written (both escape the same way).
  return JSON.stringify(value);
}

/** `text` as `# ` comment lines of at most WIDTH columns. */
function comment(text: string): string[] {
  if (!text) return [];
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}
