// W006: http:// and ws:// to another machine send bearer tokens and events readable by anyone on the path.
import type { Rule } from './rule.js';
import { finding, keyPath } from './helpers/findings.js';
import { isLoopbackHost, parseUrl } from '../../grammar/url.js';
import { urlValues } from './helpers/urls.js';

/** URLs to hosts other than loopback use https:// or wss://. */
export const plaintextRemoteEndpoint: Rule = {
  id: 'W006',
  alias: 'plaintext-remote-endpoint',
  severity: 'warning',
  summary: 'endpoints on other hosts should use https:// or wss://',
  check(m) {
    return urlValues(m).flatMap(({ segments, url }) => {
      const u = parseUrl(url);
      if (!u || (u.protocol !== 'http:' && u.protocol !== 'ws:') || isLoopbackHost(u.hostname)) return [];
      const secure = u.protocol === 'http:' ? 'https:' : 'wss:';
      return [
        finding(
          segments,
          `${keyPath(segments)} uses plaintext ${u.protocol.slice(0, -1)}:// to ${u.hostname}, which is not a loopback host`,
          `use ${secure}//${url.slice(u.protocol.length + 2)} (TLS), or a loopback address if the service is local`,
        ),
      ];
    });
  },
};
