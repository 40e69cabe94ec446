// The refusal the egress proxy answers with and the API keeps per agent: what names the rule and the key that would allow it, and how much is kept.
import t from 'tap';
import { allowWith, refusalBody, refusalHeader, RefusalLog } from '../../../management-api/src/egress/refusal.js';

t.test('each rule names what would allow it', async (t) => {
  t.equal(allowWith('api.example.com', 443, 'domain-not-listed'), 'sandbox.egress.allow_domains += "api.example.com"');
  t.equal(allowWith('api.example.com', 8443, 'port-not-listed'), 'sandbox.egress.allow_ports += 8443');
  t.equal(allowWith('in.corp.example', 443, 'private'), 'sandbox.egress.allow_domains += "in.corp.example"', 'an exact name opens a refused range');
  t.match(allowWith('nowhere.invalid', 443, 'unresolvable'), /does not resolve/);
  t.match(allowWith('a.example', 443, 'too-many-connections'), /128/);
  t.match(allowWith('a.example', 443, 'bad-credential'), /HTTPS_PROXY/);
  t.match(allowWith('a.example', 443, 'something-new'), /sandbox\.md/);
});

t.test('header and body carry printable ASCII only', async (t) => {
  t.equal(
    refusalHeader('a.example', 443, 'domain-not-listed'),
    'host="a.example"; port=443; rule=domain-not-listed; allow-with=sandbox.egress.allow_domains += "a.example"',
  );
  const odd = refusalHeader('bad\r\nX-Injected: 1é', 443, 'domain-not-listed');
  t.notMatch(odd, /[\r\n]|[^\x20-\x7e]/, 'no line break or non-ASCII reaches the header');
  t.match(
    refusalBody('a.example', 80, 'port-not-listed'),
    /^agentbox egress refused a\.example:80: port-not-listed; to allow it: sandbox\.egress\.allow_ports \+= 80 /,
  );
});

t.test('the log keeps the last 20 per agent, newest last, and forgets the least recent agents first', async (t) => {
  const log = new RefusalLog();
  for (let i = 1; i <= 25; i++) log.add('agt_a', { host: `h${i}.example`, port: 443, reason: 'domain-not-listed' }, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
  const kept = log.of('agt_a');
  t.equal(kept.length, RefusalLog.PER_AGENT);
  t.same(
    kept.map((r) => r.host),
    Array.from({ length: 20 }, (_, i) => `h${i + 6}.example`),
  );
  t.same(kept.at(-1), {
    at: '2026-01-01T00:00:25.000Z',
    host: 'h25.example',
    port: 443,
    reason: 'domain-not-listed',
    allowWith: 'sandbox.egress.allow_domains += "h25.example"',
  });
  kept.pop();
  t.equal(log.of('agt_a').length, 20, 'callers get a copy');
  t.same(log.of('agt_none'), []);
  for (let i = 0; i < RefusalLog.AGENTS; i++) log.add(`agt_${i}`, { host: 'x.example', port: 1, reason: 'port-not-listed' });
  t.same(log.of('agt_a'), [], 'the agent refused longest ago is forgotten past the bound');
  t.equal(log.of('agt_0').length, 1);
});
