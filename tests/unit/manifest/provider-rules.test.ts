// The rules on providers' base_url: the URL checks every URL gets (E003, E035, W006), E044 and W018.
import t from 'tap';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { baseUrlVariable, brokeredProviders } from '../../../management-api/src/manifest/rules/helpers/providers.js';

const env = { K: 'set' };
const ids = async (source: string): Promise<string[]> =>
  (await loadManifestSource(source, { targetArch: 'x86_64', env })).diagnostics.map((d) => `${d.id}@${d.pointer}`);
const provider = (name: string, base: string, extra = '') => `[providers.${name}]\nenv_var = "K"\nbase_url = "${base}"\n${extra}`;

t.test('base_url gets the URL rules of every other URL', async (t) => {
  t.same(await ids(provider('p', 'https://user:pw@api.example.com/v1')), ['E003@/providers/p/base_url'], 'credentials in the URL');
  t.same(await ids(provider('p', 'http://api.example.com/v1')), ['W006@/providers/p/base_url'], 'plaintext to another host');
  t.same(await ids(provider('p', 'http://127.0.0.1:8080/v1')), [], 'plaintext on loopback is fine');
  t.same(await ids(provider('p', 'https://')), ['E035@/providers/p/base_url'], 'no host');
});

t.test('E044: one variable per provider, never AGENTBOX_*', async (t) => {
  t.same(await ids(provider('agentbox', 'https://a.example.com')), ['E044@/providers/agentbox/base_url']);
  t.same(
    await ids(provider('a-b', 'https://a.example.com') + provider('a_b', 'https://b.example.com')),
    ['E044@/providers/a_b/base_url'],
    'the second of two is reported',
  );
  t.same(
    await ids(provider('a-b', 'https://a.example.com') + provider('a_b', 'https://b.example.com', 'enabled = false')),
    ['W018@/providers/a_b/base_url'],
    'a disabled one is not announced, so no clash',
  );
  t.same(await ids(`${provider('a-b', 'https://a.example.com')}[providers.a_b]\nenv_var = "K"\n`), [], 'nor one without base_url');
});

t.test('W018: ignored when disabled or when the orchestrator is not local', async (t) => {
  const external =
    '[adapters]\norchestrator = "external-stdio"\n[integrations.orchestrator]\ncommand = "/usr/bin/orch"\n[mesh]\nmode = "client"\nhost_url = "https://mesh.example.com"\n';
  const found = (await loadManifestSource(external + provider('p', 'https://a.example.com'), { targetArch: 'x86_64', env })).diagnostics;
  t.match(
    found.find((d) => d.id === 'W018'),
    {
      pointer: '/providers/p/base_url',
      message: /adapters\.orchestrator = "external-stdio": only agents of the local orchestrator \(local-procmgr\) receive a token and P_BASE_URL/,
    },
  );
});

t.test('the variable and the list of brokered providers', async (t) => {
  t.equal(baseUrlVariable('anthropic'), 'ANTHROPIC_BASE_URL');
  t.equal(baseUrlVariable('open-ai_2'), 'OPEN_AI_2_BASE_URL');
  const m = {
    providers: {
      a: { enabled: true, env_var: 'K', base_url: 'https://a' },
      b: { enabled: false, env_var: 'K', base_url: 'https://b' },
      c: { enabled: true, env_var: 'K', base_url: '' },
    },
  };
  t.same(
    brokeredProviders(m).map((p) => p.name),
    ['a'],
  );
});
