// File paths in URLs whose percent-escapes are bytes that are not UTF-8: a workspace or snapshot file whose name is not UTF-8 (`%FF`) is reached by its bytes, where the router alone would refuse the URL.
import type { IncomingMessage } from 'node:http';
import { decodeName } from '../fs-names.js';

/**
 * Why here, before routing: the router decodes a URL's path as UTF-8 and refuses one that is not
 * (`400`), so a file named by other bytes, as the kernel allows, could be listed but never read,
 * written or deleted on its own. For the files routes only (an agent's workspace, a snapshot's
 * files), such a URL's file path is decoded here as bytes, each one that is not UTF-8 becoming
 * the lone surrogate a listing shows it as (fs-names.ts), and kept beside the request; the router
 * is given the same URL with those bytes as U+FFFD, so it routes it, and the route takes the path
 * kept here (filePathOf). Every other URL that does not decode is refused as before.
 */
const FILES_PATH = /^(\/v1\/(?:agents|snapshots)\/[^/?#]+\/files\/)([^?#]*)(.*)$/s;

/** The exact file paths of requests whose URLs were rewritten, by request (gone with it). */
const exactPaths = new WeakMap<IncomingMessage, string>();

/** fastify's `rewriteUrl`: the URL to route `req` by (itself unless it is a files route whose path is not UTF-8). */
export function routableUrl(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const match = FILES_PATH.exec(url);
  if (!match || decodes(match[2]!)) return url;
  const bytes = percentDecoded(match[2]!);
  if (!bytes) return url;
  exactPaths.set(req, decodeName(bytes));
  return `${match[1]}${encodeURIComponent(bytes.toString('utf8'))}${match[3]}`;
}

/** The file path after `/files/` of a request: the one kept for a URL that was not UTF-8, else the router's own `wildcard`. */
export function filePathOf(request: { raw: IncomingMessage; params: { '*'?: string } }): string {
  return exactPaths.get(request.raw) ?? request.params['*'] ?? '';
}

function decodes(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}

/** `part`'s bytes with each `%XX` decoded, or undefined when a `%` is not followed by two hex digits (the router refuses that URL as before). */
function percentDecoded(part: string): Buffer | undefined {
  const out: number[] = [];
  const raw = Buffer.from(part, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 0x25) {
      out.push(raw[i]!);
      continue;
    }
    const hex = raw.toString('latin1', i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
    out.push(Number.parseInt(hex, 16));
    i += 2;
  }
  return Buffer.from(out);
}
