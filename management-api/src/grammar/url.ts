// URLs and hosts as the manifest and the runtime check them: parsing, loopback and wildcard addresses, an advertisable base URL (rules and the API's start-up alike).

/** The parsed URL, or undefined when it cannot be parsed. */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** True for names and addresses that stay on this machine (localhost, 127/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1' || h === '::ffff:7f00:1';
}

/** True for addresses that listen on every interface. */
export function isWildcardAddress(address: string): boolean {
  const a = address.replace(/^\[(.*)\]$/, '$1');
  return a === '0.0.0.0' || a === '::' || a === '0:0:0:0:0:0:0:0';
}

/**
 * What is wrong with `text` as the base URL a box advertises to its mesh (mesh.advertise_url or
 * AGENTBOX_ADVERTISE_URL), or undefined when it is usable: http or https, a host other boxes can
 * reach (not a wildcard address), no credentials (they would be published to every member), no
 * query or fragment (paths are appended to it). Shared by rule E050 and the API's start-up check.
 */
export function advertiseUrlProblem(text: string): string | undefined {
  const url = parseUrl(text);
  if (!url?.hostname) return 'is not a URL with a host';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `uses ${url.protocol.replace(/:$/, '')}://, not http:// or https://`;
  if (url.username !== '' || url.password !== '') return 'carries a user name or password, which every mesh member would see';
  if (url.search !== '' || url.hash !== '') return 'carries a query or fragment (the API paths are appended to it)';
  if (isWildcardAddress(url.hostname)) return `names the wildcard address ${url.hostname}, which no other box can reach`;
  return undefined;
}

/**
 * The host of an http URL that reaches a listener bound to `bind` from this machine: a wildcard
 * is reached on the loopback address of its family (0.0.0.0 on 127.0.0.1, :: on ::1), any other
 * address as itself; an IPv6 address is put in brackets (a bracketed one is taken as it is).
 */
export function listenerHost(bind: string): string {
  const bare = bind.replace(/^\[(.*)\]$/, '$1');
  const reached = isWildcardAddress(bare) ? (bare.includes(':') ? '::1' : '127.0.0.1') : bare;
  return reached.includes(':') ? `[${reached}]` : reached;
}

/**
 * The URL of a listener bound to `bind` on `port`, with `path` appended: the one place a bind
 * address becomes a URL (the API's and the metrics' URLs, the agents' listener, the relay's, the
 * URLs `agentbox up` prints). `scheme` is `http` unless given (the relay's is `ws`).
 */
export function listenerUrl(bind: string, port: number, path = '', scheme: 'http' | 'ws' = 'http'): string {
  return `${scheme}://${listenerHost(bind)}:${port}${path}`;
}
