// The agent details in headless Chromium show what the egress proxy refused the agent: a real box,
// the real proxy programme, an agent that asks for a host the manifest does not list.
import path from 'node:path';
import t from 'tap';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runEgressProxy } from '../../management-api/src/egress/proxy-main.js';
import { makeRoot, waitFor } from '../api/support/harness.js';
import { writeFile } from 'node:fs/promises';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import { openUiPage } from './support/ui-page.js';

t.test('an agent refused by the proxy: its details list the host, the rule and the key that would allow it', async (t) => {
  const toml =
    '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[sandbox.egress]\nallow_domains = ["allowed.example"]\nallow_ports = [80]\n';
  const root = await makeRoot();
  const manifestFile = path.join(root.dir, 'agentbox.toml');
  await writeFile(manifestFile, toml);
  await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
  const proxy = await runEgressProxy(
    { AGENTBOX_ROOT: root.dir, AGENTBOX_MANIFEST: manifestFile, AGENTBOX_EGRESS_PORT: '0' },
    createLogger({ level: 'silent' }),
  );
  t.teardown(() => proxy.close());
  const opened = await openUiPage(toml, { root, egress: { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } } });
  t.teardown(() => opened.close());
  const { page, ui } = opened;
  const { box } = ui;
  const { text, waitText } = pageText(page);
  await waitFor('the control channel', () => box.server.app.agentbox.egress!.status().reachable);

  // curl honours HTTP_PROXY (the agent's credential is in it): the proxy refuses the unlisted host.
  const spawned = await box.api('/v1/agents', {
    body: { name: 'curious', command: '/bin/sh', args: ['-c', 'curl -s -o /dev/null -w "%{http_code}\\n" http://refused.example/; sleep 30'] },
  });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const id = (spawned.json['agent'] as { id: string }).id;
  await waitFor(
    'the refusal on the record',
    async () => ((await box.api(`/v1/agents/${id}`)).json['agent'] as { refusals?: unknown[] }).refusals?.length,
    30_000,
  );

  await page.goto(`${box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await signIn(page, box.key);
  await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT);
  await page.click('[data-testid="tab-agents"]');
  await page.waitForSelector('[data-testid="agent-curious"] [data-testid="follow"]', PAGE_WAIT);
  await page.click('[data-testid="agent-curious"] [data-testid="follow"]');
  await waitText('[data-testid="agent-refusals"]', 'refused.example');
  const row = await text('[data-testid="refusal"]');
  t.match(row, /refused\.example:80/, 'the destination');
  t.match(row, /domain-not-listed/, 'the rule that refused it');
  t.match(row, /sandbox\.egress\.allow_domains \+= "refused\.example"/, 'the manifest key that would allow it');
  await page.screenshot({ path: path.join(screenshotDir(), '3-agents-refusals.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation');
  await box.api(`/v1/agents/${id}?graceMs=200`, { method: 'DELETE' });
});
