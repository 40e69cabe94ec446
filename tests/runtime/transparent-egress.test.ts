// Transparent egress in bubblewrap: clients that ignore the proxy variables (Node 20's fetch, curl, git, python's http.client, a static binary) reach an allowed name through the real proxy, by name, as the agent; an unlisted one is refused and says why.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runEgressProxy } from '../../management-api/src/egress/proxy-main.js';
import { systemResolver } from '../../management-api/src/egress/decision.js';
import { namespacesVerdict } from '../../management-api/src/sandbox/namespaces-probe.js';
import { findExecutable } from '../../management-api/src/sandbox/namespace-sandbox.js';
import { makeRoot, startTestServer } from '../api/support/harness.js';
import { waitFor } from '../helpers/wait.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bwrap = findExecutable('bwrap', process.env['PATH'] ?? '');
const verdict = bwrap ? await namespacesVerdict({ bwrap }) : undefined;

t.test(
  "clients that ignore HTTPS_PROXY get the proxy's decisions by name",
  { skip: verdict?.available ? false : `bubblewrap is not usable here: ${verdict?.reason ?? 'no bwrap'}` },
  async (t) => {
    // The allowed host: a server on the host's loopback, named allowed.test to the proxy alone.
    const seen: string[] = [];
    const web = http.createServer((req, res) => {
      seen.push(`${req.headers['host']} ${req.url}`);
      res.end(`hello ${req.url}\n`);
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    // A client may keep its connection alive (through the proxy's tunnel): close those too, or close() waits on them.
    t.teardown(() => {
      web.closeAllConnections();
      return new Promise<void>((resolve) => web.close(() => resolve()));
    });
    const port = (web.address() as AddressInfo).port;
    const root = await makeRoot();
    const manifestFile = path.join(root.dir, 'agentbox.toml');
    const toml = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[sandbox]\nnamespaces = "required"\n[sandbox.egress]\nallow_domains = ["allowed.test"]\nallow_ports = [${port}]\ntransparent = true\n`;
    writeFileSync(manifestFile, toml);
    await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
    const resolve = async (name: string): Promise<string[]> => (name === 'allowed.test' ? ['127.0.0.1'] : systemResolver(name));
    const proxy = await runEgressProxy(
      { AGENTBOX_ROOT: root.dir, AGENTBOX_MANIFEST: manifestFile, AGENTBOX_EGRESS_PORT: '0' },
      createLogger({ level: 'silent' }),
      resolve,
    );
    t.teardown(() => proxy.close());
    const server = await startTestServer({ toml, root, egress: { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } } });
    t.teardown(() => server.close());
    await waitFor('the control channel', () => server.server.app.agentbox.egress!.status().reachable);

    // Every client with the proxy variables removed: only the names the sandbox resolves lead out.
    const dir = path.join(server.paths.workspaceDir, 'clients');
    mkdirSync(dir, { recursive: true });
    execFileSync('gcc', ['-static', '-O2', '-o', path.join(dir, 'static-get'), path.join(repo, 'tests/runtime/fixtures/static-http-get.c')], {
      stdio: 'ignore',
    });
    const url = `http://allowed.test:${port}`;
    const script = [
      'unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy NODE_USE_ENV_PROXY',
      `echo "node: $(${process.execPath} -e "fetch('${url}/node').then((r) => r.text()).then((b) => process.stdout.write(b), (e) => process.stdout.write(String(e.cause?.code ?? e)))")"`,
      `echo "curl: $(curl -s ${url}/curl)"`,
      `echo "python: $(/usr/bin/python3 -c "import http.client as h; c = h.HTTPConnection('allowed.test', ${port}); c.request('GET', '/python'); print(c.getresponse().read().decode().strip())")"`,
      `git ls-remote ${url}/repo.git >/dev/null 2>&1; echo "git: done"`,
      `echo "static: $(./static-get allowed.test ${port} | tail -n 1)"`,
      `echo "refused: $(curl -s -D - http://refused.test:${port}/ | tr -d '\\r' | grep -i -e '^x-agentbox-refusal' -e '^agentbox egress')"`,
    ].join('\n');
    writeFileSync(path.join(dir, 'clients.sh'), `${script}\n`);
    const spawned = await server.api('/v1/agents', { body: { name: 'clients', command: '/bin/sh', args: ['clients.sh'], cwd: 'clients' } });
    t.equal(spawned.status, 201, JSON.stringify(spawned.json));
    const id = (spawned.json['agent'] as { id: string }).id;
    await waitFor('the agent to end', async () => ((await server.api(`/v1/agents/${id}`)).json['agent'] as { state: string }).state !== 'running', 60_000);
    const out = await server.api(`/v1/agents/${id}/output`);
    const text = (out.json['chunks'] as Array<{ stream: string; text: string }>).map((c) => c.text).join('');
    t.match(text, /^node: hello \/node$/m, "Node 20's fetch reaches the allowed name");
    t.match(text, /^curl: hello \/curl$/m, 'curl');
    t.match(text, /^python: hello \/python$/m, "python's http.client");
    t.match(text, /^static: hello \/static$/m, 'a static binary');
    t.ok(seen.includes(`allowed.test:${port} /repo.git/info/refs?service=git-upload-pack`), `git's request reached the server (${seen.join(', ')})`);
    t.match(
      text,
      new RegExp(
        `^refused: x-agentbox-refusal: host="refused.test"; port=${port}; rule=domain-not-listed; allow-with=sandbox.egress.allow_domains \\+= "refused.test"`,
        'mi',
      ),
      'a plain-HTTP client sees the refusal and its reason',
    );
    t.match(text, /agentbox-sandbox: egress refused: host="refused\.test"/, "the forwarder says so on the agent's stderr");

    // Decided by the proxy as this agent: its events carry its id, its refusal is on its record.
    const events = await waitFor('the decisions', async () => {
      const items = (await server.api('/v1/events?kind=sandbox.egress&limit=100')).json['items'] as Array<{ data: Record<string, unknown> }>;
      return items.filter((e) => e.data['agent'] === id).length >= 6 ? items.map((e) => e.data) : undefined;
    });
    const allowed = events.filter((e) => e['agent'] === id && e['decision'] === 'allowed');
    t.ok(
      allowed.length >= 5 && allowed.every((e) => e['host'] === 'allowed.test' && e['port'] === port && e['method'] === 'CONNECT'),
      'every allowed connection was a CONNECT by name, as the agent',
    );
    const record = (await server.api(`/v1/agents/${id}`)).json['agent'] as { refusals: Array<Record<string, unknown>> };
    t.match(record.refusals, [{ host: 'refused.test', port, reason: 'domain-not-listed', allowWith: 'sandbox.egress.allow_domains += "refused.test"' }]);
  },
);
