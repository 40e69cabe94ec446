// Generates the TypeScript client's route types from the API's OpenAPI document: each route's
// path parameters, query, headers, body and JSON answer, keyed "METHOD /path/{param}".
import { errorCodes } from '../../../management-api/src/errors.js';
import { openApiDocument } from './openapi-document.js';
import { propertyKey, schemaToTs } from './schema-to-ts.js';

type Operation = {
  summary?: string;
  parameters?: Array<{ in: string; name: string; required?: boolean; description?: string; schema?: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const HEADER = "// generated from the API's OpenAPI document (each route's schemas) by `npm run generate` — do not edit\n";

/** The members of one route's entry (params, query, headers, body, response), as TypeScript. */
function routeEntry(op: Operation): string {
  const out: string[] = [];
  for (const where of ['path', 'query', 'header'] as const) {
    const list = (op.parameters ?? []).filter((p) => p.in === where);
    if (!list.length) continue;
    const schema = {
      type: 'object',
      properties: Object.fromEntries(list.map((p) => [p.name, { ...(p.schema as object), ...(p.description ? { description: p.description } : {}) }])),
      required: list.filter((p) => p.required).map((p) => p.name),
    };
    const field = where === 'path' ? 'params' : where === 'query' ? 'query' : 'headers';
    out.push(`    ${field}${list.some((p) => p.required) ? '' : '?'}: ${schemaToTs(schema, 2)};\n`);
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body !== undefined) out.push(`    body${op.requestBody?.required ? '' : '?'}: ${schemaToTs(body, 2)};\n`);
  out.push(`    response: ${responseType(op)};\n`);
  return out.join('');
}

/** The union of the JSON bodies of every 2xx answer (`undefined` for one without a body). */
function responseType(op: Operation): string {
  const types = new Set<string>();
  for (const [status, answer] of Object.entries(op.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = answer.content?.['application/json']?.schema;
    types.add(schema === undefined || status === '204' ? 'undefined' : schemaToTs(schema, 2));
  }
  return types.size ? [...types].join(' | ') : 'unknown';
}

/** TypeScript source of `Routes`, `RouteKey`, `ROUTE_KEYS` and `ErrorCode` for the given document. */
export function clientTypesFrom(doc: Record<string, unknown>): string {
  const paths = (doc['paths'] ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  const keys: string[] = [];
  const entries: string[] = [];
  for (const pathname of Object.keys(paths).sort()) {
    for (const method of METHODS) {
      const op = paths[pathname]?.[method];
      if (!op) continue;
      const key = `${method.toUpperCase()} ${pathname}`;
      keys.push(key);
      entries.push(`${op.summary ? `  /** ${op.summary.replace(/\*\//g, '*\\/')} */\n` : ''}  ${propertyKey(key)}: {\n${routeEntry(op)}  };\n`);
    }
  }
  return [
    HEADER,
    '\n/** Every error code the API answers with, as `{error: code, message}` (docs/errors.md). */\n',
    `export type ErrorCode =\n${Object.keys(errorCodes)
      .map((c) => `  | ${JSON.stringify(c)}`)
      .join('\n')};\n`,
    '\n/** Every route: path parameters, query, headers, JSON body and the JSON answer of its 2xx responses. */\n',
    `export interface Routes {\n${entries.join('')}}\n`,
    '\n/** A route, as "METHOD /path/{param}". */\nexport type RouteKey = keyof Routes;\n',
    `\n/** Every route, in the order of the document. */\nexport const ROUTE_KEYS: readonly RouteKey[] = [\n${keys.map((k) => `  ${JSON.stringify(k)},`).join('\n')}\n];\n`,
  ].join('');
}

/** The generated file for the app as it is now. */
export async function generateClientTypes(): Promise<string> {
  return clientTypesFrom(await openApiDocument());
}
