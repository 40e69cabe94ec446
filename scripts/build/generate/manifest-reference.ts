// Generates docs/user/manifest.md, the key-by-key reference of agentbox.toml, from the schema.
import { generatedHeader } from './header.js';
import { resolveRef, type SchemaNode } from '../../../management-api/src/manifest/schema-walk.js';
import { tomlValue } from '../../cli/starter-manifest.js';

/** Markdown reference for every table and key of the manifest. */
export function generateManifestReference(schema: object): string {
  const root = schema as SchemaNode;
  const out: string[] = [
    generatedHeader('md'),
    '# agentbox.toml reference',
    '',
    root.description ?? '',
    '',
    'Every key is optional: the default shown is what an absent key means. Validate a manifest with',
    '`npx agentbox config validate`; see the normalized result with `npx agentbox config show`.',
    '',
  ];
  for (const [name, node] of Object.entries(root.properties ?? {})) {
    section(out, [name], resolveRef(node, root), root);
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

function section(out: string[], path: string[], node: SchemaNode, root: SchemaNode): void {
  const mapValue = typeof node.additionalProperties === 'object' ? resolveRef(node.additionalProperties, root) : undefined;
  const header = mapValue ? `${path.join('.')}.<name>` : path.join('.');
  out.push(`${'#'.repeat(Math.min(path.length + 1, 4))} \`[${header}]\``, '', node.description ?? '', '', ...examples(path.join('.'), node));
  const table = mapValue ?? node;
  if (mapValue && node.propertyNames?.pattern) out.push(`Names match \`${node.propertyNames.pattern}\`.`, '');
  const rows: string[] = [];
  const nested: Array<[string, SchemaNode]> = [];
  const arrays: Array<[string, SchemaNode]> = [];
  for (const [key, raw] of Object.entries(table.properties ?? {})) {
    const child = resolveRef(raw, root);
    if (child.type === 'object' && (child.properties || typeof child.additionalProperties === 'object') && key !== 'environment') {
      nested.push([key, child]);
      continue;
    }
    const items = child.type === 'array' && child.items ? resolveRef(child.items, root) : undefined;
    // An array of tables (`[[a.b]]`): its own section, its row says where.
    if (items?.type === 'object' && items.properties) arrays.push([key, items]);
    const required = table.required?.includes(key) ? ' **(required)**' : '';
    const type = items?.type === 'object' && items.properties ? `array of tables (\`[[${[...path, key].join('.')}]]\`, below)` : typeText(child);
    rows.push(`| \`${key}\`${required} | ${type} | ${defaultText(child)} | ${escapeCell(child.description ?? '')} |`);
  }
  if (rows.length) out.push('| key | type | default | description |', '|---|---|---|---|', ...rows, '');
  const base = mapValue ? [...path, '<name>'] : path;
  for (const [key, child] of nested) section(out, [...base, key], child, root);
  for (const [key, items] of arrays) arraySection(out, [...base, key], items);
}

/** One `[[a.b]]` array of tables: its item's keys. */
function arraySection(out: string[], path: string[], items: SchemaNode): void {
  out.push(`${'#'.repeat(Math.min(path.length + 1, 4))} \`[[${path.join('.')}]]\``, '', items.description ?? '', '');
  const rows = Object.entries(items.properties ?? {}).map(([key, child]) => {
    const required = items.required?.includes(key) ? ' **(required)**' : '';
    return `| \`${key}\`${required} | ${typeText(child)} | ${defaultText(child)} | ${escapeCell(child.description ?? '')} |`;
  });
  out.push('| key | type | default | description |', '|---|---|---|---|', ...rows, '');
}

/** The node's schema examples as a TOML block (entries of a map or optional table). */
function examples(name: string, node: SchemaNode): string[] {
  const samples = (node.examples ?? []) as Array<Record<string, Record<string, unknown>>>;
  if (!samples.length) return [];
  const lines = samples.flatMap((sample) =>
    Object.entries(sample).flatMap(([entry, value]) => [`[${name}.${entry}]`, ...Object.entries(value).map(([k, v]) => `${k} = ${tomlValue(v)}`), '']),
  );
  return ['```toml', ...lines.slice(0, -1), '```', ''];
}

function typeText(n: SchemaNode): string {
  if (n.enum) return n.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (n.type === 'array') return `array of ${n.items ? typeText(n.items) : 'any'}`;
  const bounds: string[] = [];
  if (n.minimum !== undefined) bounds.push(`≥ ${n.minimum}`);
  if (n.exclusiveMinimum !== undefined) bounds.push(`> ${n.exclusiveMinimum}`);
  if (n.maximum !== undefined) bounds.push(`≤ ${n.maximum}`);
  if (n.pattern) bounds.push(`matches \`${n.pattern.replace(/\|/g, '\\|')}\``);
  const t = n.type === 'object' ? 'table of string' : String(n.type ?? 'any');
  return bounds.length ? `${t} (${bounds.join(', ')})` : t;
}

function defaultText(n: SchemaNode): string {
  return n.default === undefined ? '—' : `\`${JSON.stringify(n.default)}\``;
}

function escapeCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
