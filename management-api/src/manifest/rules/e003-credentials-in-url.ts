// E003: a user name or password inside a URL is a secret written into the manifest (and its hash, logs and /v1/meta).
import type { Rule } from './rule.js';
import { finding, keyPath } from './helpers/findings.js';
import { parseUrl } from '../../grammar/url.js';
import { urlValues } from './helpers/urls.js';

/** No URL in the manifest may carry user information. */
export const credentialsInUrl: Rule = {
  id: 'E003',
  alias: 'credentials-in-url',
  severity: 'error',
  summary: 'URLs must not contain a user name or password',
  check(m) {
    return urlValues(m).flatMap(({ segments, url }) => {
      const parsed = parseUrl(url);
      if (!parsed || (parsed.username === '' && parsed.password === '')) return [];
      const what = parsed.password !== '' ? 'a password' : 'a user name';
      parsed.username = '';
      parsed.password = '';
      return [
        finding(
          segments,
          `${keyPath(segments)} carries ${what} in the URL`,
          `write the URL without credentials (${parsed.href}) and keep the secret in a file or environment variable named by the matching token_env / token_file key`,
        ),
      ];
    });
  },
};
