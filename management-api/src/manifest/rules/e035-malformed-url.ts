// E035: the schema only checks a URL's scheme; one that does not parse fails when the box first connects.
import type { Rule } from './rule.js';
import { finding, keyPath } from './helpers/findings.js';
import { parseUrl } from '../../grammar/url.js';
import { urlValues } from './helpers/urls.js';

/** Every URL in the manifest parses and names a host. */
export const malformedUrl: Rule = {
  id: 'E035',
  alias: 'malformed-url',
  severity: 'error',
  summary: 'URLs must parse and name a host',
  check(m) {
    return urlValues(m)
      .filter(({ url }) => !parseUrl(url)?.hostname)
      .map(({ segments, url }) =>
        finding(
          segments,
          `${keyPath(segments)} = "${url}" is not a valid URL with a host`,
          `write a complete URL such as "https://service.example.com:8443/path" (percent-encode spaces and special characters)`,
        ),
      );
  },
};
