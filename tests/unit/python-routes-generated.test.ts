// The Python client's route table and types are what the routes generate now, and what the generator writes is Python that loads.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { generatePythonRoutes, pythonRoutesFrom, routeTypeName } from '../../scripts/build/generate/python-client.js';

const thing = (extra: object) => ({
  paths: {
    '/v1/things/{id}': {
      post: {
        summary: 'A thing',
        parameters: [
          { in: 'path', name: 'id', required: true, schema: { type: 'string' } },
          { in: 'header', name: 'x-file-mode', schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['n'],
                properties: { n: { type: 'integer', description: 'how many' }, from: { type: ['string', 'null'] }, ...extra },
              },
            },
          },
        },
        responses: { '201': { content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } } } } } }, '204': {} },
      },
    },
  },
});

/** What python3 makes of the generated module: each TypedDict's required and optional keys, and the route table. */
function load(source: string): { required: string[]; optional: string[]; headers: string[]; response: string; routes: string[] } {
  const probe = [
    'import json, sys, types',
    'm = types.ModuleType("routes"); exec(sys.stdin.read(), m.__dict__)',
    'b = m.PostV1ThingsIdBody',
    'print(json.dumps({"required": sorted(b.__required_keys__), "optional": sorted(b.__optional_keys__),',
    ' "headers": sorted(m.PostV1ThingsIdHeaders.__optional_keys__), "response": str(m.PostV1ThingsIdResponse), "routes": list(m.ROUTES)}))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-W', 'error', '-c', probe], { input: source, encoding: 'utf8' }));
}

t.test('the checked-in Python module matches the routes', async (t) => {
  const have = await readFile(new URL('../../clients/python/agentbox_client/_routes.py', import.meta.url), 'utf8');
  t.equal(await generatePythonRoutes(), have, 'stale: run `npm run generate` after changing a route');
});

t.test('route type names', async (t) => {
  t.equal(routeTypeName('get', '/v1/agents/{id}/files/{*}'), 'GetV1AgentsIdFilesRest');
  t.equal(routeTypeName('put', '/v1/sandbox/egress'), 'PutV1SandboxEgress');
});

t.test('a route becomes TypedDicts python3 loads: required keys, keywords and hyphens as keys, the 204 as None', async (t) => {
  const source = pythonRoutesFrom(thing({}));
  t.match(source, /# how many\n {4}"n": Required\[int\],/);
  t.match(source, /"from": str \| None,/);
  t.same(load(source), {
    required: ['n'],
    optional: ['from'],
    headers: ['x-file-mode'],
    response: 'routes.PostV1ThingsIdResponse | None',
    routes: ['POST /v1/things/{id}'],
  });
  const changed = pythonRoutesFrom(thing({ tag: { type: 'string', enum: ['a', 'b'] } }));
  t.not(changed, source, 'a new body field is a different file');
  t.match(changed, /"tag": Literal\["a", "b"\],/);
});

t.test('two places with one type name fail the generation', async (t) => {
  const clash = {
    type: 'object',
    properties: { a_b: { type: 'object', properties: { x: { type: 'string' } } }, aB: { type: 'object', properties: { y: { type: 'string' } } } },
  };
  const doc = { paths: { '/v1/x': { get: { responses: { '200': { content: { 'application/json': { schema: clash } } } } } } } };
  t.throws(() => pythonRoutesFrom(doc), /two schemas map to the Python type name GetV1XResponseAB/);
});
