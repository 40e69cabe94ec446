// Agent tokens and the variables an agent is given: digests only, revocation, bounds.
import t from 'tap';
import { AdapterInputError } from '../../../management-api/src/adapter-errors.js';
import { agentCredentials } from '../../../management-api/src/credentials/agent-credentials.js';
import { AgentTokens, MAX_CREATED_BEADS, rememberCreatedBead } from '../../../management-api/src/credentials/agent-tokens.js';
import { targetUrl } from '../../../management-api/src/credentials/provider-broker.js';
import { brokerTarget, unsafePath } from '../../../management-api/src/credentials/broker-path.js';

t.test('tokens: fresh per issue, verified by digest, revoked by agent id', async (t) => {
  const tokens = new AgentTokens();
  const a = tokens.issue({ id: 'agt_a', name: 'alpha' });
  const b = tokens.issue({ id: 'agt_b', name: 'beta' });
  t.match(a, /^abx_agent_[A-Za-z0-9_-]{43}$/);
  t.not(a, b);
  t.match(tokens.verify(a), { id: 'agt_a', name: 'alpha' });
  t.equal(tokens.verify(a.slice(0, -1)), undefined, 'a near miss is unknown');
  t.equal(tokens.verify('not-a-token'), undefined);
  const again = tokens.issue({ id: 'agt_a', name: 'alpha' });
  t.equal(tokens.verify(a), undefined, 're-issuing replaces the earlier token');
  t.ok(tokens.verify(again));
  t.equal(tokens.size, 2);
  t.ok(tokens.revoke('agt_a'));
  t.notOk(tokens.revoke('agt_a'), 'revoking twice is harmless');
  t.equal(tokens.verify(again), undefined);
  t.equal(tokens.size, 1);
});

t.test('created beads are remembered up to a bound, oldest forgotten first', async (t) => {
  const tokens = new AgentTokens();
  const agent = tokens.verify(tokens.issue({ id: 'agt_a', name: 'alpha' }))!;
  for (let i = 0; i <= MAX_CREATED_BEADS; i++) rememberCreatedBead(agent, `b-${i}`);
  t.equal(agent.createdBeads.size, MAX_CREATED_BEADS);
  t.notOk(agent.createdBeads.has('b-0'));
  t.ok(agent.createdBeads.has(`b-${MAX_CREATED_BEADS}`));
});

t.test('the hooks give the token, the API URL and provider addresses, and refuse the operator key', async (t) => {
  const tokens = new AgentTokens();
  const key = 'operator-key-0123456789-0123456789-abcdefgh';
  const hooks = agentCredentials({
    tokens,
    operatorKey: key,
    apiUrl: () => 'http://127.0.0.1:9090',
    providers: [
      { name: 'open-ai', baseUrl: 'https://api.openai.com/v1', envVar: 'OPENAI_API_KEY', variable: 'OPEN_AI_BASE_URL', keyVariable: 'OPEN_AI_API_KEY' },
    ],
  });
  const env = hooks.issue({ id: 'agt_a', name: 'alpha' });
  t.same(Object.keys(env).sort(), ['AGENTBOX_API_URL', 'AGENTBOX_TOKEN', 'OPEN_AI_API_KEY', 'OPEN_AI_BASE_URL']);
  t.equal(env['OPEN_AI_API_KEY'], env['AGENTBOX_TOKEN'], 'the key variable holds the agent token');
  t.equal(env['OPEN_AI_BASE_URL'], 'http://127.0.0.1:9090/v1/providers/open-ai');
  t.ok(tokens.verify(env['AGENTBOX_TOKEN']!));
  hooks.revoke('agt_a');
  t.equal(tokens.size, 0);
  t.doesNotThrow(() => hooks.check({ command: '/bin/true', args: ['x'], env: { A: 'b' } }));
  t.throws(() => hooks.check({ command: '/bin/true', args: [`--token=${key}`] }), AdapterInputError);
  t.throws(() => hooks.check({ command: `/bin/${key}`, args: [] }), AdapterInputError);
  t.throws(() => hooks.check({ command: '/bin/true', args: [], env: { X: `pre${key}` } }), { message: /an env value carries the box API key/ });
});

t.test('broker targets stay under base_url', async (t) => {
  const p = { name: 'p', baseUrl: 'https://api.example.com/v1/' };
  t.equal(targetUrl(p, '/v1/providers/p/chat/completions?x=1&y=%20'), 'https://api.example.com/v1/chat/completions?x=1&y=%20');
  t.equal(
    targetUrl({ name: 'p', baseUrl: 'https://api.example.com' }, '/v1/providers/p/@evil.example/x'),
    'https://api.example.com/@evil.example/x',
    'an @ in the path is a path',
  );
  t.throws(
    () => targetUrl({ name: 'p', baseUrl: 'https://api.example.com' }, '/v1/providers/p.evil.example/x'),
    { code: 'ABX_ERR_PROVIDER_PATH' },
    'a host cannot be appended',
  );
  for (const base of ['https://api.example.com/v1', 'https://api.example.com/v1/', 'https://api.example.com/v1//']) {
    t.equal(brokerTarget(base, '/models'), 'https://api.example.com/v1/models', `${base}: one slash between base and path`);
    t.equal(brokerTarget(base, '/'), 'https://api.example.com/v1/', `${base}: the base itself`);
    t.throws(() => brokerTarget(base, '/../v1evil/x'), { code: 'ABX_ERR_PROVIDER_PATH' }, `${base}: /v1 does not admit /v1evil`);
  }
  t.equal(brokerTarget('https://api.example.com', '/x/y'), 'https://api.example.com/x/y', 'a base_url without a path admits any plain path');
  for (const path of ['/a/./b', '/a/../a', '/a//b', '/a\\b', '/a%2fb', '/%2E/b', '/a%25/b', '/a/.%3bx/b', '/a/%zz', 'x', '/a#/../../b'])
    t.type(unsafePath(path), 'string', `${path} is refused`);
  for (const path of ['', '/', '/a/', '/a.b/c..d/...', '/a;b=c/d', '/a%20b/%3a']) t.equal(unsafePath(path), undefined, `${path} is plain`);
});

t.test('a spawn refused for its environment or command leaves no live token', async (t) => {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const os = await import('node:os');
  const path = await import('node:path');
  const pino = (await import('pino')).default;
  const { ProcessManager } = await import('../../../management-api/src/adapters/orchestrator/process-manager.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-tokens-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const tokens = new AgentTokens();
  const credentials = agentCredentials({
    tokens,
    operatorKey: 'operator-key-0123456789-0123456789-abcdefgh',
    apiUrl: () => 'http://127.0.0.1:1',
    providers: [],
  });
  const manager = new ProcessManager({ workspaceDir: dir, parentEnv: {}, logger: pino({ level: 'silent' }), credentials });
  await manager.start();
  await t.rejects(manager.spawn({ name: 'bad-env', command: '/bin/true', args: [], env: { AGENTBOX_X: '1' } }), AdapterInputError);
  await t.rejects(manager.spawn({ name: 'no-such', command: '/no/such/command', args: [] }), AdapterInputError);
  t.equal(tokens.size, 0);
});
