// /v1/memory routes over HTTP (fastify inject) on a real local-ruvector slot: schemas, status codes, error bodies.
import t from 'tap';
import Fastify from 'fastify';
import { registerAjv2020 } from '../../management-api/src/http/validator.js';
import { registerErrorHandling } from '../../management-api/src/http/error-handler.js';
import { registerMemoryRoutes } from '../../management-api/src/routes/memory-routes.js';
import type { AgentboxState } from '../../management-api/src/app-state.js';
import { seededVector } from './memory.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

async function app(impl: string) {
  const h = await startSlot('memory', onlySlot('memory', impl));
  const app = Fastify();
  registerAjv2020(app);
  registerErrorHandling(app);
  app.decorate('agentbox', { resolver: h.resolver } as unknown as AgentboxState);
  registerMemoryRoutes(app, { max: 1000, timeWindowMs: 60_000, bodyLimit: 1024 * 1024 });
  await app.ready();
  return {
    app,
    close: async () => {
      await app.close();
      await h.close();
    },
  };
}

t.test('store, search, get, list, delete over HTTP', async (t) => {
  const { app: api, close } = await app('local-ruvector');
  t.teardown(close);
  const stored = await api.inject({
    method: 'POST',
    url: '/v1/memory/notes',
    payload: { id: 'n1', text: 'rotate the signing keys monthly', metadata: { team: 'ops' } },
  });
  t.equal(stored.statusCode, 201);
  t.same(stored.json(), { id: 'n1' });
  await api.inject({ method: 'POST', url: '/v1/memory/notes', payload: { text: 'buy milk', vector: seededVector(1, 384) } });
  const search = await api.inject({ method: 'POST', url: '/v1/memory/notes/search', payload: { text: 'signing keys', k: 2 } });
  t.equal(search.statusCode, 200);
  t.match(search.json(), { hits: [{ id: 'n1', text: 'rotate the signing keys monthly', metadata: { team: 'ops' } }] });
  const got = await api.inject({ method: 'GET', url: '/v1/memory/notes/n1' });
  t.equal(got.statusCode, 200);
  t.equal((got.json() as { memory: { vector: number[] } }).memory.vector.length, 384);
  const list = await api.inject({ method: 'GET', url: '/v1/memory/notes?limit=1' });
  t.equal((list.json() as { items: unknown[]; nextCursor?: string }).items.length, 1);
  t.type((list.json() as { nextCursor?: string }).nextCursor, 'string');
  t.same((await api.inject({ method: 'DELETE', url: '/v1/memory/notes/n1' })).json(), { deleted: true });
  const gone = await api.inject({ method: 'GET', url: '/v1/memory/notes/n1' });
  t.equal(gone.statusCode, 404);
  t.equal((gone.json() as { error: string }).error, 'ABX_ERR_NOT_FOUND');
});

t.test('bad input is 400 ABX_ERR_VALIDATION before or at the adapter', async (t) => {
  const { app: api, close } = await app('local-ruvector');
  t.teardown(close);
  const cases = [
    { url: '/v1/memory/notes', payload: { text: 'x', vector: [1, 2, 3] } },
    { url: '/v1/memory/notes', payload: { nope: 1 } },
    { url: '/v1/memory/notes/search', payload: { text: 'x', k: 0 } },
    { url: '/v1/memory/bad%20ns/search', payload: { text: 'x', k: 1 } },
  ];
  for (const c of cases) {
    const r = await api.inject({ method: 'POST', ...c });
    t.equal(r.statusCode, 400, c.url);
    t.equal((r.json() as { error: string }).error, 'ABX_ERR_VALIDATION');
  }
});

t.test('memory = "off" answers 503 ABX_ERR_ADAPTER_OFF', async (t) => {
  const { app: api, close } = await app('off');
  t.teardown(close);
  const r = await api.inject({ method: 'POST', url: '/v1/memory/notes/search', payload: { text: 'x', k: 1 } });
  t.equal(r.statusCode, 503);
  t.equal((r.json() as { error: string }).error, 'ABX_ERR_ADAPTER_OFF');
});
