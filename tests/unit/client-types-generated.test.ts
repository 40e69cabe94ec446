// The client's route types are what the routes generate now: regenerated from the app's OpenAPI document and diffed.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { clientTypesFrom, generateClientTypes } from '../../scripts/build/generate/client-types.js';

t.test('the checked-in route types match the routes', async (t) => {
  const have = await readFile(new URL('../../management-api/src/client/generated/api-types.ts', import.meta.url), 'utf8');
  t.equal(await generateClientTypes(), have, 'stale: run `npm run generate` after changing a route');
});

t.test('a route added or changed changes the generated types', async (t) => {
  const doc = (extra: object) => ({
    paths: {
      '/v1/things/{id}': {
        post: {
          summary: 'A thing',
          parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' }, ...extra } } } },
          },
          responses: { '201': { content: { 'application/json': { schema: { type: 'object', properties: { ok: { const: true } } } } } }, '204': {} },
        },
      },
    },
  });
  const before = clientTypesFrom(doc({}));
  t.match(
    before,
    /"POST \/v1\/things\/\{id\}": \{\n {4}params: \{\n {6}id: string;\n {4}\};\n {4}body: \{\n {6}n: number;\n {4}\};\n {4}response: \{\n {6}ok\?: true;\n {4}\} \| undefined;/,
  );
  t.not(clientTypesFrom(doc({ tag: { type: 'string', enum: ['a', 'b'] } })), before, 'a new body field is a different file');
  t.match(clientTypesFrom(doc({ tag: { type: 'string', enum: ['a', 'b'] } })), /tag\?: "a" \| "b";/);
});
