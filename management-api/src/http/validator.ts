// Request validation with JSON Schema 2020-12 (fastify's built-in compiler is draft-07), each route's validator compiled when the route is first called.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';

/** A validator as fastify calls it: the result, and the errors of the last call on the function itself. */
type LazyValidator = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };

/**
 * The validator of `compile`'s schema, compiled on its first call. Compiling every route's schemas
 * was a tenth of the API's CPU at start (ajv generates and evaluates code per schema), and most
 * routes of a box are never called in its first seconds, or at all. A schema ajv refuses is then
 * reported by the first request to its route rather than at start: tests/api/route-schemas.test.ts
 * compiles every route's schemas so such a mistake fails the suite, not a user's request.
 */
function onFirstCall(compile: () => ValidateFunction): LazyValidator {
  let compiled: ValidateFunction | undefined;
  const validate: LazyValidator = (data) => {
    compiled ??= compile();
    const ok = compiled(data) as boolean;
    validate.errors = compiled.errors;
    return ok;
  };
  return validate;
}

/** Each app's validators, to compile them all at once (the test above). */
const compilations = new WeakMap<FastifyInstance, Array<() => ValidateFunction>>();

/** Compile every validator of `app`'s routes now; throws the first schema ajv refuses, naming its route. */
export function compileAllRouteSchemas(app: FastifyInstance): number {
  const pending = compilations.get(app) ?? [];
  for (const compile of pending) compile();
  return pending.length;
}

/**
 * Compile route schemas with Ajv 2020. Bodies are validated as sent (no type coercion, no
 * stripping); querystrings, params and headers arrive as text, so those coerce to the schema
 * type. Each Ajv instance is created on first use: an instance costs memory, and many apps
 * have no schema of one of the two kinds.
 */
export function registerAjv2020(app: FastifyInstance): void {
  // verbose: each error carries the schema it failed, whose description schemaErrorText tells.
  const common = { strict: true, allErrors: false, useDefaults: true, verbose: true } as const;
  let body: Ajv2020 | undefined;
  let text: Ajv2020 | undefined;
  const pending: Array<() => ValidateFunction> = [];
  compilations.set(app, pending);
  app.setValidatorCompiler(({ schema, httpPart, method, url }) => {
    const compile = (): ValidateFunction => {
      try {
        if (httpPart === 'body') return (body ??= new Ajv2020({ ...common, coerceTypes: false })).compile(schema);
        return (text ??= new Ajv2020({ ...common, coerceTypes: 'array' })).compile(schema);
      } catch (error) {
        throw new Error(`${method} ${url}: the ${httpPart} schema does not compile: ${(error as Error).message}`);
      }
    };
    pending.push(compile);
    return onFirstCall(compile);
  });
}

/**
 * fastify's schemaErrorFormatter: its own wording (`body/name must be string`), except where a
 * value failed a pattern whose schema's description names what the value is ("A …"): then that is
 * said first, so a
 * malformed id reads `params/sid must be a snapshot id (snp_…), matching ^snp_…$` rather than
 * only the pattern. The value itself is never repeated (it may be anything a caller sent).
 */
export function schemaErrorText(errors: ErrorObject[], dataVar: string): Error {
  return new Error(
    errors
      .map((e) => {
        const where = `${dataVar}${e.instancePath || ''}`;
        const said = (e.parentSchema as { description?: unknown } | undefined)?.description;
        // Only a description that names the value ("A snapshot id (snp_…)") reads as what it must be.
        if (e.keyword === 'pattern' && typeof said === 'string' && /^An? /.test(said))
          return `${where} must be ${said.charAt(0).toLowerCase()}${said.slice(1)}, matching ${String(e.params['pattern'])}`;
        return `${where} ${e.message}`;
      })
      .join(', '),
  );
}
