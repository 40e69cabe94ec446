// E050: the advertised URL is published to every mesh member and dialled by them; one they cannot use breaks registration or failover.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { advertiseUrlProblem } from '../../grammar/url.js';

/** mesh.advertise_url, when set, is an http(s) base URL without credentials that other boxes can reach. */
export const malformedAdvertiseUrl: Rule = {
  id: 'E050',
  alias: 'malformed-advertise-url',
  severity: 'error',
  summary: 'mesh.advertise_url must be an http:// or https:// base URL with a reachable host and no credentials, query or fragment',
  check(m) {
    const url = m.mesh.advertise_url;
    if (url === '') return [];
    const problem = advertiseUrlProblem(url);
    if (!problem) return [];
    return [
      finding(
        ['mesh', 'advertise_url'],
        `mesh.advertise_url = "${url}" ${problem}`,
        'write the address other boxes reach this API at, such as "https://box-a.example.com" or "http://box-a-0.box-a-pods.team.svc:9090"; leave it empty to use AGENTBOX_ADVERTISE_URL or the listen address',
      ),
    ];
  },
};
