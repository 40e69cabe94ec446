// Response serialization with fastify's own compiler (fast-json-stringify), each serializer compiled when its route first answers with that status.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;

/**
 * fastify's serializer factory, made lazy: a route's response schema is compiled to a function
 * (fast-json-stringify generates and evaluates code per schema) on its first answer with that
 * status, not when the route is registered. At start that compilation cost as much as the
 * request validators did, for routes most boxes never call in their first seconds; a serializer
 * is the same function either way, so responses are byte for byte the same.
 */
export const lazySerializerFactory: Factory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    const now = (): ((doc: unknown) => string) => {
      try {
        return (serialize ??= compile(route));
      } catch (error) {
        throw new Error(`${route.method} ${route.url}: the ${route.httpStatus} response schema does not compile: ${(error as Error).message}`);
      }
    };
    const ref = new WeakRef(now);
    registered.add(ref);
    forget.register(now, ref);
    return (doc) => now()(doc);
  };
};

/**
 * Every serializer the factory has made in this process and whose app still lives, to compile
 * them at once. Held weakly: a process that builds many apps (the tests) keeps none of the old ones.
 */
const registered = new Set<WeakRef<() => unknown>>();
const forget = new FinalizationRegistry<WeakRef<() => unknown>>((ref) => registered.delete(ref));

/**
 * Compile every response serializer made so far in this process; throws the first schema that
 * does not compile, naming its route. For tests/api/route-schemas.test.ts: a mistake in a response
 * schema must fail the suite, not a user's request.
 */
export function compileAllResponseSerializers(): number {
  let compiled = 0;
  for (const ref of registered) {
    const compile = ref.deref();
    if (!compile) continue;
    compile();
    compiled++;
  }
  return compiled;
}
