// Reads the direct members of a Solid container from its Turtle representation (`ldp:contains`).
import { Parser, type Quad } from 'n3';
import { AdapterUnavailableError } from '../../adapter-errors.js';

const LDP_CONTAINS = 'http://www.w3.org/ns/ldp#contains';

/**
 * Member names of the container at `containerUrl` from its Turtle `body`, containers with a
 * trailing `/`. Only IRIs that are direct children of the container count; they are compared by
 * path, so a server that names itself by another host (a proxy, localhost vs 127.0.0.1) still
 * lists. Names are percent-decoded. A body that is not Turtle makes the slot unavailable: the
 * server is not answering as a Solid server.
 */
export function containedNames(containerUrl: URL, body: string): string[] {
  let quads: Quad[];
  try {
    quads = new Parser({ baseIRI: containerUrl.href, format: 'text/turtle' }).parse(body);
  } catch (err) {
    throw new AdapterUnavailableError('pods', `the Solid server's listing of ${containerUrl.pathname} is not valid Turtle: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const names = new Set<string>();
  for (const quad of quads) {
    if (quad.predicate.value !== LDP_CONTAINS || quad.object.termType !== 'NamedNode') continue;
    if (pathOf(quad.subject.value) !== containerUrl.pathname) continue;
    const name = directChildName(containerUrl.pathname, pathOf(quad.object.value));
    if (name !== undefined) names.add(name);
  }
  return [...names];
}

function pathOf(iri: string): string | undefined {
  try {
    return new URL(iri).pathname;
  } catch {
    return undefined;
  }
}

/** The decoded name of `memberPath` when it is one segment below `containerPath` (`/a/` + `b` or `b/`). */
function directChildName(containerPath: string, memberPath: string | undefined): string | undefined {
  if (!memberPath?.startsWith(containerPath)) return undefined;
  const rest = memberPath.slice(containerPath.length);
  const isContainer = rest.endsWith('/');
  const raw = isContainer ? rest.slice(0, -1) : rest;
  if (raw === '' || raw.includes('/')) return undefined;
  try {
    return decodeURIComponent(raw) + (isContainer ? '/' : '');
  } catch {
    return undefined;
  }
}
