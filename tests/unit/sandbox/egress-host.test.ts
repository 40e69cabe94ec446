// Plain HTTP through the egress proxy names upstream exactly the host and port that were checked, whatever Host the agent wrote.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { Allowlist } from '../../../management-api/src/egress/allowlist.js';
import { CredentialStore } from '../../../management-api/src/egress/credential-store.js';
import { absoluteTarget, createEgressProxy } from '../../../management-api/src/egress/proxy.js';
import { newProxyCredential } from '../../../management-api/src/egress/agent-credential.js';

/** An upstream on 127.0.0.1 that answers with the Host it received and records every request. */
async function hostEcho(): Promise<{ port: number; seen: http.IncomingHttpHeaders[]; close: () => void }> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end(`host=${req.headers['host'] ?? '(none)'}`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

t.test('the request that leaves the proxy names the checked host', async (t) => {
  const upstream = await hostEcho();
  t.teardown(upstream.close);
  const credentials = new CredentialStore();
  const { secret, hash } = newProxyCredential();
  credentials.set('agt_host', hash);
  const proxy = createEgressProxy({
    credentials,
    allowlist: () => new Allowlist({ allow_domains: ['localhost'], allow_ports: [upstream.port] }),
    onDecision: () => undefined,
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  t.teardown(() => {
    proxy.closeAllConnections();
    proxy.close();
  });
  const auth = `Proxy-Authorization: Basic ${Buffer.from(`agt_host:${secret}`).toString('base64')}\r\n`;
  const checked = `localhost:${upstream.port}`;

  /** Write `head` as it is to the proxy and read the whole answer (the proxy is told to close). */
  const send = async (head: string): Promise<{ status: number; reason?: string; body: string }> => {
    const s = net.connect((proxy.address() as net.AddressInfo).port, '127.0.0.1');
    s.write(`${head}${auth}Connection: close\r\n\r\n`);
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d.toString()));
    await once(s, 'close');
    const reason = /x-agentbox-egress: (\S+)/i.exec(answer)?.[1];
    return { status: Number(answer.split(' ')[1]), ...(reason ? { reason } : {}), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) };
  };

  await t.test("the agent's Host is replaced by the checked URL's", async (t) => {
    for (const host of ['internal.service', 'localhost:1', '169.254.169.254', checked.toUpperCase()]) {
      const r = await send(`GET http://${checked}/x HTTP/1.1\r\nHost: ${host}\r\n`);
      t.same([r.status, r.body], [200, `host=${checked}`], `Host: ${host} never reaches the server`);
    }
    const none = await send(`GET http://${checked}/x HTTP/1.0\r\n`);
    t.same([none.status, none.body], [200, `host=${checked}`], 'a request without Host gets the checked one');
    t.notOk(
      upstream.seen.some((h) => h['host'] !== checked),
      'every request upstream named the checked host',
    );
  });

  await t.test('requests whose target is not a plain absolute http URL are refused before anything leaves', async (t) => {
    const before = upstream.seen.length;
    const cases: Array<[string, string]> = [
      [`GET /x HTTP/1.1\r\nHost: ${checked}\r\n`, 'not-absolute-form'],
      [`GET * HTTP/1.1\r\nHost: ${checked}\r\n`, 'not-absolute-form'],
      [`GET http://${checked}/x HTTP/1.1\r\nHost: ${checked}\r\nHost: internal.service\r\n`, 'duplicate-host'],
      [`GET http://${checked}/x HTTP/1.1\r\nHost: internal.service\r\nhost: ${checked}\r\n`, 'duplicate-host'],
      [`GET http:${checked}/x HTTP/1.1\r\nHost: ${checked}\r\n`, 'bad-target'],
      [`GET http:/${checked}/x HTTP/1.1\r\nHost: ${checked}\r\n`, 'bad-target'],
      [`GET http://internal.service@${checked}/x HTTP/1.1\r\nHost: ${checked}\r\n`, 'bad-target'],
      [`GET http://${checked}\\@internal.service/x HTTP/1.1\r\nHost: ${checked}\r\n`, 'bad-target'],
      [`GET https://${checked}/x HTTP/1.1\r\nHost: ${checked}\r\n`, 'only-http'],
    ];
    for (const [head, reason] of cases) {
      const r = await send(head);
      // Node's own parser refuses some of these first (a bare 400, no reason): refused all the same.
      t.equal(r.status, 400, JSON.stringify(head.split('\r\n')[0]));
      if (r.reason !== undefined) t.equal(r.reason, reason);
      const [method, target] = head.split(' ');
      const rawHeaders = head
        .split('\r\n')
        .slice(1)
        .filter(Boolean)
        .flatMap((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]);
      t.equal(method === 'GET' && absoluteTarget({ url: target!, rawHeaders }), reason, `the proxy's own verdict on ${target}`);
    }
    t.equal(upstream.seen.length, before, 'none of them reached the server');
  });

  await t.test('headers the agent lists in Connection stay at the proxy', async (t) => {
    const r = await send(`GET http://${checked}/x HTTP/1.1\r\nHost: ${checked}\r\nX-Hop: secret\r\nX-Kept: yes\r\nConnection: x-hop\r\n`);
    t.equal(r.status, 200);
    const seen = upstream.seen.at(-1)!;
    t.equal(seen['x-hop'], undefined);
    t.equal(seen['x-kept'], 'yes');
    t.equal(seen['proxy-authorization'], undefined);
  });
});
