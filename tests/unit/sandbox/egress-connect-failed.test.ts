// A CONNECT the policy allows to a port where nothing listens: the agent gets 502 connect-failed, not a dropped connection.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { Allowlist } from '../../../management-api/src/egress/allowlist.js';
import { CredentialStore } from '../../../management-api/src/egress/credential-store.js';
import { createEgressProxy, type EgressDecision } from '../../../management-api/src/egress/proxy.js';
import { newProxyCredential } from '../../../management-api/src/egress/agent-credential.js';

/** A loopback port that was free a moment ago (its listener closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

for (const relay of ['buffer', 'pipe'] as const) {
  t.test(`${relay} relay: an allowed target that refuses the connection answers 502 connect-failed`, async (t) => {
    const port = await closedPort();
    const credentials = new CredentialStore();
    const { secret, hash } = newProxyCredential();
    credentials.set('agt_one', hash);
    const decisions: EgressDecision[] = [];
    const proxy = createEgressProxy({
      credentials,
      allowlist: () => new Allowlist({ allow_domains: ['127.0.0.1'], allow_ports: [port] }),
      onDecision: (d) => decisions.push(d),
      relay,
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    t.teardown(() => {
      proxy.closeAllConnections();
      proxy.close();
    });
    const s = net.connect((proxy.address() as net.AddressInfo).port, '127.0.0.1');
    s.write(
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: Basic ${Buffer.from(`agt_one:${secret}`).toString('base64')}\r\n\r\n`,
    );
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d.toString()));
    await once(s, 'close');
    t.match(answer, /^HTTP\/1\.1 502 Bad Gateway\r\n/, 'a status line, not a silent close');
    t.match(answer, /X-Agentbox-Egress: connect-failed\r\n/);
    t.match(decisions, [{ agent: 'agt_one', decision: 'allowed', port }], "the policy allowed it: the failure is the target's");
  });
}
