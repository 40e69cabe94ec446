// Every route's request and response schemas compile: validators and serializers are compiled on a route's first use (http/validator.ts, http/serializer.ts), so a schema that does not compile would otherwise surface only in a user's request.
import t from 'tap';
import Fastify from 'fastify';
import { compileAllResponseSerializers, lazySerializerFactory } from '../../management-api/src/http/serializer.js';
import { compileAllRouteSchemas, registerAjv2020 } from '../../management-api/src/http/validator.js';
import { startTestServer } from './support/harness.js';

const LOCAL =
  '[adapters]\nbeads = "local-sqlite"\npods = "local-fs"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' +
  '[policy]\ndefault = "allow"\n';
const HOST = `${LOCAL}[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = []\n`;

for (const [name, toml] of [
  ['every slot local', LOCAL],
  ['a mesh host', HOST],
] as const) {
  t.test(`${name}: every route's validators compile`, async (t) => {
    const box = await startTestServer({ toml });
    t.teardown(() => box.close());
    const count = compileAllRouteSchemas(box.server.app);
    t.ok(count >= 40, `${count} validators compiled`);
    const serializers = compileAllResponseSerializers();
    t.ok(serializers >= 40, `${serializers} response serializers compiled`);
  });
}

t.test('a schema ajv refuses fails the compilation, naming its route', async (t) => {
  const app = Fastify();
  registerAjv2020(app);
  app.post('/broken', { schema: { body: { type: 'object', properties: { a: { type: 'no-such-type' } } } } }, async () => 'never');
  await app.ready();
  t.throws(() => compileAllRouteSchemas(app), /POST \/broken: the body schema does not compile/);
  t.equal((await app.inject({ method: 'POST', url: '/broken', payload: {} })).statusCode, 500, 'and its first request fails');
  await app.close();
});

t.test('a response schema that does not compile fails the compilation, naming its route', async (t) => {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } } });
  app.get('/bad', { schema: { response: { 200: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } } } }, async () => ({ a: 1 }));
  t.teardown(() => app.close());
  await app.ready();
  t.throws(() => compileAllResponseSerializers(), /GET \/bad: the 200 response schema does not compile/);
});

t.test('a lazily compiled validator reports errors as fastify expects', async (t) => {
  const app = Fastify();
  registerAjv2020(app);
  app.post('/n', { schema: { body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } } }, async (r) => r.body);
  t.teardown(() => app.close());
  const bad = await app.inject({ method: 'POST', url: '/n', payload: { n: 'x' } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { message: /body\/n must be integer/ });
  t.equal((await app.inject({ method: 'POST', url: '/n', payload: { n: 3 } })).json().n, 3);
  t.match(
    (await app.inject({ method: 'POST', url: '/n', payload: {} })).json(),
    { message: /must have required property 'n'/ },
    'errors of the latest call, not the first',
  );
});
