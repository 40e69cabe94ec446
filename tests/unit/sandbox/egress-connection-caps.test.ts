// One agent's flood of connections to the egress proxy: past its own cap it is refused (429 too-many-connections), while another agent still gets through and a closed connection frees its slot.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { Allowlist } from '../../../management-api/src/egress/allowlist.js';
import { CredentialStore } from '../../../management-api/src/egress/credential-store.js';
import { createEgressProxy, type EgressDecision } from '../../../management-api/src/egress/proxy.js';
import { newProxyCredential } from '../../../management-api/src/egress/agent-credential.js';
import { HEADERS_TIMEOUT_MS, MAX_CONNECTIONS } from '../../../management-api/src/egress/connection-caps.js';
import { waitFor } from '../../helpers/wait.js';

const CAP = 8;

t.test('each agent holds at most its share of the proxy', async (t) => {
  // An upstream that accepts and holds: each tunnel stays open.
  const held: net.Socket[] = [];
  const upstream = net.createServer((s) => void held.push(s));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  t.teardown(() => {
    for (const s of held) s.destroy();
    upstream.close();
  });
  const port = (upstream.address() as net.AddressInfo).port;
  const credentials = new CredentialStore();
  const hog = newProxyCredential();
  const other = newProxyCredential();
  credentials.set('agt_hog', hog.hash);
  credentials.set('agt_other', other.hash);
  const decisions: EgressDecision[] = [];
  const proxy = createEgressProxy({
    credentials,
    allowlist: () => new Allowlist({ allow_domains: ['localhost'], allow_ports: [port] }),
    onDecision: (d) => void decisions.push(d),
    maxPerAgent: CAP,
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const open: net.Socket[] = [];
  t.teardown(() => {
    for (const s of open) s.destroy();
    proxy.closeAllConnections();
    proxy.close();
  });
  t.equal(proxy.maxConnections, MAX_CONNECTIONS, 'a ceiling on every connection');
  t.equal(proxy.headersTimeout, HEADERS_TIMEOUT_MS, 'a connection that never asks is closed');

  /** CONNECT as `agent`; resolves with the status line's code, the socket kept open. */
  const connect = async (agent: string, secret: string): Promise<number> => {
    const s = net.connect((proxy.address() as net.AddressInfo).port, '127.0.0.1');
    open.push(s);
    s.write(
      `CONNECT localhost:${port} HTTP/1.1\r\nHost: localhost:${port}\r\nProxy-Authorization: Basic ${Buffer.from(`${agent}:${secret}`).toString('base64')}\r\n\r\n`,
    );
    const [data] = (await once(s, 'data')) as [Buffer];
    return Number(data.toString().split(' ')[1]);
  };

  const first = [];
  for (let i = 0; i < CAP; i++) first.push(await connect('agt_hog', hog.secret));
  t.same(first, Array(CAP).fill(200), `the first ${CAP} tunnels of one agent open`);
  t.equal(await connect('agt_hog', hog.secret), 429, 'the next is refused');
  t.match(decisions.at(-1), { agent: 'agt_hog', decision: 'denied', reason: 'too-many-connections' }, 'and recorded as a decision');
  t.equal(await connect('agt_other', other.secret), 200, 'another agent still gets through');
  open[0]!.destroy();
  // The proxy learns of the close asynchronously: a refused try is closed by the proxy and frees nothing.
  t.equal(
    await waitFor('a slot to free', async () => ((await connect('agt_hog', hog.secret)) === 200 ? 200 : undefined), 5_000, 20),
    200,
    'a closed tunnel frees its slot',
  );
});
