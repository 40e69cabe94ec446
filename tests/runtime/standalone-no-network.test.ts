// A standalone box makes no network call at all: the whole process tree of a box on the default
// manifest (every slot local, mesh standalone, Nostr off) runs under strace, is used through its
// API, and every connect/send syscall it made is checked — only unix sockets and the box's own
// loopback ports, never DNS, never another address.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBox, waitForStatus } from '../runtime-contract/support/box-runner.js';
import { networkCalls, stopTraced, straceWrap } from './support/net-trace.js';

t.test('the trace parser sees DNS and TCP calls, tells unix sockets apart and skips netlink to the kernel', async (t) => {
  const sample = [
    '7754  connect(18, {sa_family=AF_UNIX, sun_path="/run/agentbox/supervisord.sock"}, 110) = 0',
    '7754  connect(18, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0',
    '7755  connect(21, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 EINPROGRESS',
    '7756  sendto(5, "x", 1, 0, NULL, 0) = 1',
    // bwrap configuring a new network namespace's loopback through the kernel: not a network call.
    '7757  sendto(4, [{nlmsg_len=40, nlmsg_type=0x14}, "..."], 40, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 40',
    // Netlink to another process is kept (it is not the kernel).
    '7758  sendto(4, [{nlmsg_len=40}, "..."], 40, 0, {sa_family=AF_NETLINK, nl_pid=4242, nl_groups=00000000}, 12) = 40',
  ].join('\n');
  const calls = networkCalls(sample);
  t.same(
    calls.map((c) => [c.family, c.host, c.port]),
    [
      ['AF_UNIX', undefined, undefined],
      ['AF_INET', '10.255.255.53', 53],
      ['AF_INET6', '2001:db8::1', 443],
      ['AF_NETLINK', undefined, undefined],
    ],
  );
});

t.test('a standalone box on the default manifest calls nothing beyond its own sockets', { timeout: 180_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-standalone-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const traceFile = path.join(work, 'trace.txt');
  const box = await startBox({ manifest: '', wrapWith: straceWrap(traceFile) });
  const stopBox = (): Promise<void> => stopTraced(box);
  t.teardown(async () => {
    if (box.proc.exitCode === null && box.proc.signalCode === null) await stopBox().catch(() => box.proc.kill('SIGKILL'));
  });
  await waitForStatus(`${box.apiUrl}/ready`, 200, 120_000);
  const key = readFileSync(path.join(box.hostRoot, 'var/lib/agentbox/secrets/api-key'), 'utf8').trim();
  const call = async (method: string, url: string, body?: unknown): Promise<number> => {
    const res = await fetch(box.apiUrl + url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    await res.arrayBuffer();
    return res.status;
  };
  // Every slot in use once: whatever would reach out (a model download, a telemetry ping) does it here.
  t.equal(await call('POST', '/v1/beads', { title: 'offline' }), 201);
  t.equal(await call('POST', '/v1/memory/notes', { text: 'no network is needed to remember this' }), 201);
  t.equal(await call('POST', '/v1/events', { kind: 'test.offline', source: 'test', data: {} }), 201);
  t.equal(await call('GET', '/v1/meta'), 200);
  await stopBox();

  const apiPort = Number(new URL(box.apiUrl).port);
  const calls = networkCalls(readFileSync(traceFile, 'utf8'));
  t.ok(
    calls.some((c) => c.family === 'AF_UNIX'),
    'the trace covers the box (its own unix-socket connections are in it)',
  );
  const outward = calls.filter((c) => c.family !== 'AF_UNIX' && !(c.host && /^(127\.0\.0\.1|::1)$/.test(c.host) && c.port === apiPort));
  t.same(
    outward.map((c) => c.line),
    [],
    'no connect or send to any address but the box itself (no DNS, no other host)',
  );
});
