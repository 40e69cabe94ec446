// A route that declares no agent access: a warning when it is registered, and agent tokens refused there.
import t from 'tap';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { registerErrorHandling } from '../../../management-api/src/http/error-handler.js';
import { registerRequestGate } from '../../../management-api/src/http/request-gate.js';
import { AgentTokens } from '../../../management-api/src/credentials/agent-tokens.js';
import { captureLogs } from '../../api/support/harness.js';

t.test('an undeclared route is logged and refused to agents; the operator key still works', async (t) => {
  const logs = captureLogs();
  // As fastify's own logger type, which the route helpers take (as the app's instance does).
  const logger: FastifyBaseLogger = pino({ level: 'info' }, logs.destination);
  const app = Fastify({ loggerInstance: logger });
  t.teardown(() => app.close());
  const tokens = new AgentTokens();
  const key = 'k'.repeat(43);
  const gate = registerRequestGate(app, { key, agents: tokens });
  registerErrorHandling(app, { gate });
  app.get('/v1/new-thing', async () => ({ ok: true }));
  app.get('/v1/open-to-agents', { config: { agent: 'allow' } }, async (request) => ({ agent: request.agent?.name ?? null }));
  await app.ready();
  t.match(logs.events('AgentAccessUndeclared'), [{ route: '/v1/new-thing' }]);

  const token = tokens.issue({ id: 'agt_a', name: 'alpha' });
  const as = (auth: string, url: string, headers: Record<string, string> = {}) => app.inject({ url, headers: { authorization: `Bearer ${auth}`, ...headers } });
  t.equal((await as(key, '/v1/new-thing')).statusCode, 200);
  const refused = await as(token, '/v1/new-thing');
  t.equal(refused.statusCode, 403);
  t.match(refused.json(), { error: 'ABX_ERR_AGENT_SCOPE', message: /GET \/v1\/new-thing is outside this agent's scope/ });
  t.same((await as(token, '/v1/open-to-agents')).json(), { agent: 'alpha' });
  // No route: the 404 any caller gets, not a refusal naming no route.
  for (const url of ['/v1/no-such-thing', '/v1/open-to-agents/'])
    t.match({ status: (await as(token, url)).statusCode, body: (await as(token, url)).json() }, { status: 404, body: { error: 'ABX_ERR_NOT_FOUND' } }, url);
  t.same((await as(key, '/v1/open-to-agents')).json(), { agent: null }, 'the operator is no agent');
  const viaHeader = await app.inject({ url: '/v1/open-to-agents', headers: { 'x-api-key': token } });
  t.equal(viaHeader.statusCode, 401, 'x-api-key counts only on the provider broker');
  t.match(viaHeader.json(), { error: 'ABX_ERR_AUTH_REQUIRED' });
  tokens.revoke('agt_a');
  t.match((await as(token, '/v1/open-to-agents')).json(), { error: 'ABX_ERR_AUTH_INVALID', message: /unknown or revoked/ });
});
