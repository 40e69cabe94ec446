// `agentbox inputs` and `agentbox answer` as the installed bin against a real box: a tty agent's prompt listed with its screen, answered from standard input, refusals and usage.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { startTestServer, waitFor } from '../../api/support/harness.js';

const ORCHESTRATOR = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-inputs-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));

const box = await startTestServer({ toml: ORCHESTRATOR, env: { PATH: '/usr/bin:/bin' }, timing: { promptQuietMs: 300 } });
t.teardown(() => box.close());
const target = ['--url', box.server.apiUrl, '--root', box.paths.root];
const cli = (args: string[], input?: string) =>
  runAgentboxAsync([...args.slice(0, 1), ...target, ...args.slice(1)], { cwd: work, env, ...(input !== undefined ? { input } : {}) });

t.test('--help of each', async (t) => {
  t.match(await runAgentboxAsync(['inputs', '--help'], { env }), { code: 0, stdout: /Usage: agentbox inputs/ });
  t.match(await runAgentboxAsync(['answer', '--help'], { env }), { code: 0, stdout: /Usage: agentbox answer ID TEXT\|- \[--no-enter\]/ });
});

t.test('inputs lists a waiting tty agent with its screen; answer - types the answer read from stdin', async (t) => {
  t.match(await cli(['inputs']), { code: 0, stdout: 'no agent waits for input\n' });
  const spawned = await box.api('/v1/agents', {
    body: {
      name: 'keyholder',
      command: '/bin/bash',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${#p} (the length of what was read)
      args: ['-c', 'echo "unlocking the vault"; read -s -p "Passphrase: " p; echo; echo "got ${#p} characters" > got.txt; sleep 5'],
      tty: true,
    },
  });
  const agent = spawned.json['agent'] as { id: string };
  const listed = await waitFor('the prompt listed', async () => {
    const r = await cli(['inputs']);
    return r.stdout.includes('Passphrase:') ? r : undefined;
  });
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, new RegExp(`^inp_[0-9a-f]{18} +\\d+s  keyholder \\[${agent.id}\\]  prompt    Passphrase:$`, 'm'));
  t.match(listed.stdout, /^ {4}│ unlocking the vault$/m, 'the screen lines, indented');
  const [request] = JSON.parse((await cli(['inputs', '--json'])).stdout) as Array<{ id: string; agentId: string }>;
  t.equal(request?.agentId, agent.id);

  const answered = await cli(['answer', request!.id, '-'], 'open sesame\n');
  t.equal(answered.code, 0, answered.stderr);
  t.equal(answered.stdout, `${request!.id}: answered (typed into keyholder's terminal, then Enter)\n`);
  const file = path.join(box.paths.workspaceDir, 'keyholder', 'got.txt');
  t.equal(await waitFor('the agent to read it', () => readFileSafe(file)), 'got 11 characters\n', 'the trailing newline of stdin is dropped, Enter typed');

  t.match(await cli(['answer', request!.id, 'again']), { code: 1, stderr: /409 ABX_ERR_INPUT_REQUEST_CLOSED: input request inp_\w+ is answered/ });
  t.match(await cli(['answer', request!.id]), { code: 2, stderr: /name one input request and the answer/ });
  t.match(await cli(['answer', request!.id, '', '--no-enter']), { code: 2, stderr: /types nothing/ });
});

function readFileSafe(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
