// The provider broker under NIP-98: an operator's signed call with a body reaches the provider (its
// body hash is checked before forwarding), a body that does not match the signed hash never does.
import t from 'tap';
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import { payloadHash } from '../../management-api/src/mesh/nip98.js';
import { startStandInProvider } from '../helpers/stand-in-provider.js';
import { startTestServer } from './support/harness.js';

const REAL_KEY = 'sk-stand-in-real-key-0123456789abcdef';

t.test('a NIP-98 signed call with a body goes through the broker; a tampered body does not', async (t) => {
  const provider = await startStandInProvider();
  t.teardown(() => provider.close());
  const operator = generateSecretKey();
  const box = await startTestServer({
    env: { STAND_API_KEY: REAL_KEY },
    toml: [
      '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"',
      `[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]`,
      `[providers.stand]\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}/v1"`,
    ].join('\n'),
    limits: { bodyLimit: 4096 },
  });
  t.teardown(() => box.close());
  const url = `${box.server.apiUrl}/v1/providers/stand/chat/completions`;
  const signed = (body: string): string => {
    const template: EventTemplate = {
      kind: 27235,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      tags: [
        ['u', url],
        ['method', 'POST'],
        ['payload', payloadHash(body)],
      ],
    };
    return `Nostr ${Buffer.from(JSON.stringify(finalizeEvent(template, operator))).toString('base64')}`;
  };
  const post = (authorization: string, body: string) => fetch(url, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body });

  const body = JSON.stringify({ model: 'm', messages: ['hi'] });
  const ok = await post(signed(body), body);
  t.equal(ok.status, 200, 'the signed call is answered by the provider');
  const arrival = provider.arrivals.find((a) => a.url === '/v1/chat/completions');
  t.ok(arrival, 'it reached the provider');
  t.same(JSON.parse(arrival?.body ?? '{}'), { model: 'm', messages: ['hi'] }, 'with its body unchanged');
  t.equal(arrival?.headers['authorization'], `Bearer ${REAL_KEY}`, 'and the real key in place of the signature');

  const before = provider.arrivals.length;
  const tampered = await post(signed(body), JSON.stringify({ model: 'm', messages: ['changed'] }));
  t.equal(tampered.status, 401, 'a body other than the signed one is refused');
  const large = 'x'.repeat(5000);
  const tooLarge = await post(signed(large), large);
  t.equal(tooLarge.status, 413, 'a signed body past the body limit is refused (it must be hashed before forwarding)');
  t.match(await tooLarge.json(), { error: 'ABX_ERR_BODY_TOO_LARGE', message: /NIP-98/ });
  t.equal(provider.arrivals.length, before, 'neither reached the provider');
});
