// Stage 2 reporting: turns Ajv's errors into diagnostics that say which key, what was expected,
// and how to fix it (with a "did you mean" for misspelt keys and enum values).
import type { ErrorObject } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';
import { pointerSegments, pointerToKeyPath, toPointer, type Diagnostic } from './diagnostics.js';
import { schemaAt, type SchemaNode } from './schema-walk.js';

/** Convert Ajv errors on `document` to diagnostics, one per distinct problem. */
export function schemaDiagnostics(errors: readonly ErrorObject[], document: unknown): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // The generic "property name must be valid" wrapper repeats the pattern error under it.
    if (e.keyword === 'pattern' && 'propertyName' in e) continue;
    const d = toDiagnostic(e, valueAt(document, e.instancePath));
    const key = `${d.pointer}\u0000${d.alias}\u0000${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

function toDiagnostic(e: ErrorObject, data: unknown): Diagnostic {
  const base = { id: 'SCHEMA', severity: 'error' as const, source: 'schema' as const };
  const node = schemaAt(e.instancePath);
  const about = node?.description ? ` (${node.description})` : '';
  const at = e.instancePath ? `\`${pointerToKeyPath(e.instancePath)}\`` : 'the manifest';
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys(node?.properties ?? {});
      const suggestion = suggest(key, known);
      const table = e.instancePath ? `[${pointerToKeyPath(e.instancePath)}]` : 'the top level';
      return {
        ...base,
        alias: 'unknown-key',
        pointer: e.instancePath + toPointer([key]),
        message: `unknown key \`${key}\` in ${table}`,
        hint: suggestion ? `did you mean \`${suggestion}\`?` : known.length ? `known keys here: ${known.join(', ')}` : 'remove it',
      };
    }
    case 'required': {
      const missing = String((e.params as { missingProperty: string }).missingProperty);
      const child = node?.properties?.[missing];
      return {
        ...base,
        alias: 'missing-key',
        pointer: e.instancePath,
        message: `${at} needs the key \`${missing}\``,
        hint: `add \`${missing} = …\`${child?.description ? ` — ${child.description}` : ''}`,
      };
    }
    case 'type': {
      const want = String((e.params as { type: string | string[] }).type);
      return {
        ...base,
        alias: 'wrong-type',
        pointer: e.instancePath,
        message: `${at} must be ${article(want)}, not ${describeValue(data)}`,
        hint: `write ${example(want, node)}${about}`,
      };
    }
    case 'enum': {
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const suggestion = typeof data === 'string' ? suggest(data, allowed) : undefined;
      return {
        ...base,
        alias: 'not-allowed-value',
        pointer: e.instancePath,
        message: `${at} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, not ${describeValue(data)}`,
        hint: suggestion ? `did you mean "${suggestion}"?` : `pick one of the allowed values${about}`,
      };
    }
    case 'propertyNames': {
      const name = String((e.params as { propertyName: string }).propertyName);
      return {
        ...base,
        alias: 'bad-name',
        pointer: e.instancePath + toPointer([name]),
        message: `name \`${name}\` is not allowed in [${pointerToKeyPath(e.instancePath)}]`,
        hint: `names must match ${node?.propertyNames?.pattern ?? 'the schema'}`,
      };
    }
    case 'pattern':
      return {
        ...base,
        alias: 'bad-format',
        pointer: e.instancePath,
        message: `${at} has the wrong format: ${describeValue(data)} does not match ${(e.params as { pattern: string }).pattern}`,
        hint: node?.description ?? 'see docs/user/manifest.md',
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const p = e.params as { comparison: string; limit: number };
      return {
        ...base,
        alias: 'out-of-range',
        pointer: e.instancePath,
        message: `${at} must be ${p.comparison} ${p.limit}, not ${describeValue(data)}`,
        hint: rangeHint(node),
      };
    }
    case 'uniqueItems':
      return {
        ...base,
        alias: 'duplicate-item',
        pointer: e.instancePath,
        message: `${at} lists the same item twice`,
        hint: 'remove the duplicate entry',
      };
    case 'minLength':
      return {
        ...base,
        alias: 'empty-value',
        pointer: e.instancePath,
        message: `${at} must not be empty`,
        hint: node?.description ?? 'give it a value or remove the key to use the default',
      };
    default:
      return {
        ...base,
        alias: `schema-${e.keyword}`,
        pointer: e.instancePath,
        message: `${at} ${e.message ?? 'is invalid'}`,
        hint: node?.description ?? 'see docs/user/manifest.md',
      };
  }
}

/** The value at `pointer` in `document`, or undefined. */
function valueAt(document: unknown, pointer: string): unknown {
  let v: unknown = document;
  for (const seg of pointerSegments(pointer)) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** The closest candidate, if it is close enough to be a plausible typo. */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  if (!candidates.length) return undefined;
  const best = closest(input, [...candidates]);
  const limit = Math.max(2, Math.floor(input.length / 3));
  return distance(input, best) <= limit ? best : undefined;
}

function rangeHint(node: SchemaNode | undefined): string {
  const lo = node?.minimum ?? node?.exclusiveMinimum;
  const hi = node?.maximum;
  const range = lo !== undefined && hi !== undefined ? `use a value from ${lo} to ${hi}` : 'use a value in range';
  return node?.default !== undefined ? `${range} (default ${JSON.stringify(node.default)})` : range;
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'a table',
    array: 'an array',
    integer: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'a boolean (true or false)',
  };
  return names[type] ?? type;
}

function example(type: string, node: SchemaNode | undefined): string {
  if (node?.default !== undefined && typeof node.default !== 'object') return `for example ${JSON.stringify(node.default)}`;
  const samples: Record<string, string> = {
    object: 'a [table] or { inline = "table" }',
    array: 'an array such as ["a", "b"]',
    integer: 'a whole number without quotes',
    number: 'a number without quotes',
    string: 'a quoted string',
    boolean: 'true or false without quotes',
  };
  return samples[type] ?? type;
}

/** Describe a TOML value briefly for a message: `"abc"` (a string), `[…]` (an array), … */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}" (a string)`;
  if (typeof value === 'number') return `${value} (${Number.isInteger(value) ? 'an integer' : 'a number'})`;
  if (typeof value === 'boolean') return `${value} (a boolean)`;
  if (typeof value === 'bigint') return `${value} (an integer)`;
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date-time';
  if (typeof value === 'object' && value !== null) return 'a table';
  return String(value);
}
