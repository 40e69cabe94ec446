// Turns one JSON Schema (as the API's routes declare them) into a TypeScript type expression.

type Schema = Record<string, unknown>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript accepts it: bare when an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

/** A description as a one-line doc comment, or nothing. */
function docComment(schema: Schema, indent: string): string {
  const text = typeof schema['description'] === 'string' ? schema['description'].replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim() : '';
  return text ? `${indent}/** ${text} */\n` : '';
}

function literal(value: unknown): string {
  return value === null || typeof value !== 'object' ? JSON.stringify(value) : 'unknown';
}

/**
 * The type of `schema`, indented for nesting at `depth`. Keywords the routes do not use fall back
 * to `unknown` rather than to a guess, so an unexpected schema widens a type instead of lying.
 */
export function schemaToTs(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!schema || typeof schema !== 'object') return 'unknown';
  const s = schema as Schema;
  if ('const' in s) return literal(s['const']);
  if (Array.isArray(s['enum'])) return s['enum'].map(literal).join(' | ') || 'never';
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key])) return s[key].map((x) => parenthesize(schemaToTs(x, depth))).join(' | ');
  }
  if (Array.isArray(s['allOf'])) return s['allOf'].map((x) => parenthesize(schemaToTs(x, depth))).join(' & ');
  const types = Array.isArray(s['type']) ? (s['type'] as string[]) : typeof s['type'] === 'string' ? [s['type']] : s['properties'] ? ['object'] : [];
  if (types.length === 0) return 'unknown';
  return types.map((t) => parenthesize(oneType(t, s, depth))).join(' | ');
}

function parenthesize(type: string): string {
  return type.includes(' | ') || type.includes(' & ') ? `(${type})` : type;
}

function oneType(type: string, s: Schema, depth: number): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return Array.isArray(s['prefixItems']) ? 'unknown[]' : `Array<${schemaToTs(s['items'] ?? true, depth)}>`;
    case 'object':
      return objectType(s, depth);
    default:
      return 'unknown';
  }
}

function objectType(s: Schema, depth: number): string {
  const properties = (s['properties'] ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s['required']) ? (s['required'] as string[]) : []);
  const pad = '  '.repeat(depth + 1);
  const lines: string[] = [];
  for (const [name, child] of Object.entries(properties)) {
    lines.push(`${docComment((child ?? {}) as Schema, pad)}${pad}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${schemaToTs(child, depth + 1)};\n`);
  }
  const extra = s['additionalProperties'];
  if (extra !== undefined && extra !== false)
    lines.push(`${pad}[key: string]: ${extra === true ? 'unknown' : `${schemaToTs(extra, depth + 1)} | undefined`};\n`);
  else if (extra === undefined && lines.length === 0) return 'Record<string, unknown>';
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('')}${'  '.repeat(depth)}}`;
}
