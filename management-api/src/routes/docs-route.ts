// GET /docs/json: the OpenAPI description of every route, probes included.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';

/** Register the OpenAPI document route (authenticated like every non-probe route). */
export function registerDocsRoute(app: FastifyInstance): void {
  app.get('/docs/json', { config: { agent: 'deny' }, schema: { hide: true } }, async () => app.swagger());
}
