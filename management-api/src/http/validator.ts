// Request validation with JSON Schema 2020-12 (fastify's built-in compiler is draft-07).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';

/**
 * Compile route schemas with Ajv 2020. Bodies are validated as sent (no type coercion, no
 * stripping); querystrings, params and headers arrive as text, so those coerce to the schema
 * type. Each Ajv instance is created on first use: an instance costs memory, and many apps
 * have no schema of one of the two kinds.
 */
export function registerAjv2020(app: FastifyInstance): void {
  const common = { strict: true, allErrors: false, useDefaults: true } as const;
  let body: Ajv2020 | undefined;
  let text: Ajv2020 | undefined;
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return (body ??= new Ajv2020({ ...common, coerceTypes: false })).compile(schema);
    return (text ??= new Ajv2020({ ...common, coerceTypes: 'array' })).compile(schema);
  });
}
