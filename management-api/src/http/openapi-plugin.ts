// The OpenAPI document as a fastify plugin: @fastify/swagger, registered before any route so it sees them all.
import fastifySwagger from '@fastify/swagger';
import fp from 'fastify-plugin';
import { apiVersion } from '../version.js';

/** Collects every route declared after it into the OpenAPI 3.1 document the docs route serves. */
export const openApiPlugin = fp(
  async (app) => {
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Agentbox management API',
          version: apiVersion(),
          description: 'Probes, metadata and adapter routes of one box. Errors are {error: ABX_ERR_*, message} (docs/errors.md).',
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'The box API key (<state>/secrets/api-key)' },
            // The mesh host's member routes: a NIP-98 event signed by a registered box's key (docs/user/mesh.md).
            nostr: { type: 'http', scheme: 'Nostr', description: 'Authorization: Nostr <base64 of a NIP-98 event signed by an allowed box key>' },
          },
        },
        security: [{ bearer: [] }],
      },
    });
  },
  { name: 'agentbox-openapi' },
);
