// Generates the Python client's route table and types (clients/python/agentbox_client/_routes.py) from the
// same OpenAPI document and error table the TypeScript client's types come from.
import { errorCodes } from '../../../management-api/src/errors.js';
import { openApiDocument } from './openapi-document.js';
import { PythonTypes, pascal } from './schema-to-python.js';

type Operation = {
  summary?: string;
  parameters?: Array<{ in: string; name: string; required?: boolean; description?: string; schema?: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const HEADER = `"""Route table, error codes and TypedDicts of the Agentbox API.

Generated from the API's OpenAPI document and management-api/src/errors.ts by \`npm run generate\`
— do not edit; \`generate --check\` fails when this file is stale.
"""

from typing import Any, Final, Literal, NamedTuple, Required, TypeAlias, TypedDict

`;

/** "GET /v1/agents/{id}/files/{*}" → "GetV1AgentsIdFilesRest": the prefix of the route's type names. */
export function routeTypeName(method: string, pathname: string): string {
  return pascal(method.toLowerCase()) + pathname.split('/').filter(Boolean).map(pascal).join('');
}

/** Defines `{prefix}Params`, `Query`, `Headers`, `Body`, `Response` for one route. */
function routeTypes(types: PythonTypes, prefix: string, op: Operation): string[] {
  const aliases: string[] = [];
  const alias = (name: string, schema: unknown): void => {
    const type = types.type(schema, name);
    if (type !== name) aliases.push(`${name}: TypeAlias = ${type}\n`);
  };
  for (const [where, part] of [
    ['path', 'Params'],
    ['query', 'Query'],
    ['header', 'Headers'],
  ] as const) {
    const list = (op.parameters ?? []).filter((p) => p.in === where);
    if (!list.length) continue;
    alias(`${prefix}${part}`, {
      type: 'object',
      properties: Object.fromEntries(list.map((p) => [p.name, { ...(p.schema as object), ...(p.description ? { description: p.description } : {}) }])),
      required: list.filter((p) => p.required).map((p) => p.name),
    });
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body !== undefined) alias(`${prefix}Body`, body);
  // The JSON bodies of the 2xx answers: one type when they are the same schema, else one per status.
  const answers = new Map<string, { status: string; schema: unknown }>();
  let empty = false;
  for (const [status, answer] of Object.entries(op.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = answer.content?.['application/json']?.schema;
    if (schema === undefined || status === '204') empty = true;
    else if (!answers.has(JSON.stringify(schema))) answers.set(JSON.stringify(schema), { status, schema });
  }
  const parts = [...answers.values()].map((a) => types.type(a.schema, answers.size > 1 ? `${prefix}Response${a.status}` : `${prefix}Response`));
  if (empty) parts.push('None');
  const response = parts.length ? parts.join(' | ') : 'Any';
  if (response !== `${prefix}Response`) aliases.push(`${prefix}Response: TypeAlias = ${response}\n`);
  return aliases;
}

/** Python source of the module for the given document. */
export function pythonRoutesFrom(doc: Record<string, unknown>): string {
  const paths = (doc['paths'] ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  const types = new PythonTypes();
  const aliases: string[] = [];
  const rows: string[] = [];
  const keys: string[] = [];
  for (const pathname of Object.keys(paths).sort()) {
    for (const method of METHODS) {
      const op = paths[pathname]?.[method];
      if (!op) continue;
      const key = `${method.toUpperCase()} ${pathname}`;
      keys.push(key);
      const prefix = routeTypeName(method, pathname);
      aliases.push(...routeTypes(types, prefix, op));
      rows.push(
        `    ${JSON.stringify(key)}: Route(${JSON.stringify(method.toUpperCase())}, ${JSON.stringify(pathname)}, ${JSON.stringify(prefix)}, ${JSON.stringify(op.summary ?? '')}),\n`,
      );
    }
  }
  const codes = Object.entries(errorCodes);
  return [
    HEADER,
    '# Every error code the API answers with, as {"error": code, "message": …} (docs/errors.md).\n',
    `ErrorCode: TypeAlias = Literal[\n${codes.map(([c]) => `    ${JSON.stringify(c)},\n`).join('')}]\n\n`,
    '# Each code with its HTTP status and what it means.\n',
    `ERROR_CODES: Final[dict[str, tuple[int, str]]] = {\n${codes.map(([c, v]) => `    ${JSON.stringify(c)}: (${v.status}, ${JSON.stringify(v.description)}),\n`).join('')}}\n\n`,
    '# A route, as "METHOD /path/{param}" ({*} is the rest of the path, slashes included).\n',
    `RouteKey: TypeAlias = Literal[\n${keys.map((k) => `    ${JSON.stringify(k)},\n`).join('')}]\n\n\n`,
    'class Route(NamedTuple):\n',
    '    """One route: its method, path template, the prefix of its type names here, and its summary."""\n\n',
    '    method: str\n    path: str\n    types: str\n    summary: str\n\n\n',
    '# Every route of the API, in the order of the document.\n',
    `ROUTES: Final[dict[str, Route]] = {\n${rows.join('')}}\n\n`,
    '# Per route, {prefix}Params, Query, Headers, Body and Response (the JSON of its 2xx answers).\n\n',
    types.definitions.join('\n'),
    '\n',
    aliases.join(''),
  ].join('');
}

/** The generated module for the app as it is now. */
export async function generatePythonRoutes(): Promise<string> {
  return pythonRoutesFrom(await openApiDocument());
}
