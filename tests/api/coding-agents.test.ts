// Claude Code and Codex CLI, the real npm packages, started by profile in a confined box on a terminal, editing a file through the provider broker against stand-in providers on 127.0.0.1.
import t from 'tap';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AGENT_CLIS, ensureAgentClis, installedVersion } from '../helpers/agent-clis.js';
import { startStandInAnthropic } from '../helpers/stand-in-anthropic.js';
import { credentialOf, type ModelCall } from '../helpers/stand-in-model.js';
import { startStandInResponses } from '../helpers/stand-in-openai.js';
import { environOf } from './support/agent-processes.js';
import { startBoxWithProxy } from './support/box-with-proxy.js';
import { waitFor } from './support/harness.js';
import { openViewer } from './support/terminal-viewer.js';

// The keys only the box's environment holds: the broker reads them, no agent may.
const ANTHROPIC_KEY = 'sk-ant-real-0123456789abcdef0123456789abcdef';
const OPENAI_KEY = 'sk-real-openai-0123456789abcdef0123456789abcdef';

type Agent = { id: string; pid: number; state: string; exitCode?: number; signal?: string; reason?: string; tty?: boolean; profile?: string };
/** What the agent's processes held while it waited for its model. */
type Seen = { processes: Array<{ pid: number; cmdline: string; env: Record<string, string> }> };

/** Every process under `pid` (itself included), walked through /proc/<pid>/task/<tid>/children. */
async function tree(pid: number): Promise<number[]> {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const tasks = await readdir(`/proc/${out[i]}/task`).catch(() => [] as string[]);
    for (const tid of tasks) {
      const children = await readFile(`/proc/${out[i]}/task/${tid}/children`, 'utf8').catch(() => '');
      for (const c of children.split(' ').filter(Boolean)) if (!out.includes(Number(c))) out.push(Number(c));
    }
  }
  return out;
}

/** The command lines and environments of agent `pid`'s processes (read as the box's user, from the host's /proc). */
async function processesOf(pid: number): Promise<Seen['processes']> {
  const seen: Seen['processes'] = [];
  for (const p of await tree(pid)) {
    const cmdline = (await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ');
    const env = await environOf(p).catch(() => ({}));
    seen.push({ pid: p, cmdline, env });
  }
  return seen;
}

const CLAUDE_FILE = { file: 'hello.txt', content: 'Hello from Claude Code in the box.\n', finalText: 'I wrote hello.txt in the workspace. All done.' };
const CODEX_FILE = { file: 'notes.md', content: 'Codex was here, confined.', finalText: 'Created notes.md with the note. Finished.' };

t.test('coding agents on a terminal, confined, through the provider broker', async (t) => {
  const clis = await ensureAgentClis();
  t.comment(
    `${Object.entries(AGENT_CLIS)
      .map(([n, v]) => `${n}@${v}`)
      .join(', ')} ${clis.downloaded ? `downloaded in ${clis.ms} ms` : 'found in the cache'} (${clis.prefix})`,
  );
  t.equal(installedVersion(clis, '@anthropic-ai/claude-code'), AGENT_CLIS['@anthropic-ai/claude-code']);
  t.equal(installedVersion(clis, '@openai/codex'), AGENT_CLIS['@openai/codex']);

  for (const namespaces of ['auto', 'off'] as const) {
    await t.test(`sandbox.namespaces = "${namespaces}"`, async (t) => {
      // The agent whose model call is being answered: its processes are looked at before the first answer.
      let current: Agent | undefined;
      const seen = new Map<string, Seen>();
      const look = async (call: ModelCall): Promise<void> => {
        const agent = await waitFor('the spawn to answer', () => current);
        if (seen.has(agent.id) || !call.body.includes('"tools"')) return;
        seen.set(agent.id, { processes: await processesOf(agent.pid) });
      };
      const anthropic = await startStandInAnthropic(CLAUDE_FILE, look);
      t.teardown(() => anthropic.close());
      const openai = await startStandInResponses(CODEX_FILE, look);
      t.teardown(() => openai.close());

      // What a user writes: the providers with their real base URLs (here the stand-ins), the keys in
      // the box's environment only, and a profile per CLI. Claude Code takes the broker's address and
      // the agent's token from ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, as the box gives them; Codex
      // takes its key from the variable its provider's env_key names and its base URL from
      // configuration only.
      const toml = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"
[sandbox]\nnamespaces = "${namespaces}"
[providers.anthropic]\nenv_var = "ANTHROPIC_API_KEY"\nbase_url = "${anthropic.url}"
[providers.openai]\nenv_var = "OPENAI_API_KEY"\nbase_url = "${openai.url}/v1"
[agents.profiles.claude]
command = "claude"
args = ["-p", "Write a friendly hello.txt here.", "--permission-mode", "acceptEdits"]
env = { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1", DISABLE_AUTOUPDATER = "1", DISABLE_TELEMETRY = "1" }
providers = ["anthropic"]
tty = true
timeout_sec = 240
[agents.profiles.codex]
command = "/bin/sh"
args = ["-c", "exec codex -c model_provider=agentbox -c \\"model_providers.agentbox={name='Agentbox broker', base_url='$OPENAI_BASE_URL', env_key='AGENTBOX_TOKEN', wire_api='responses'}\\" \\"$@\\"", "codex", "--dangerously-bypass-approvals-and-sandbox", "exec", "--skip-git-repo-check", "-m", "stand-in-model", "Jot a note into notes.md."]
providers = ["openai"]
tty = true
timeout_sec = 240
`;
      const started = await startBoxWithProxy(toml, {
        // The CLIs on the agents' PATH, as an image puts them on its own.
        PATH: `${clis.binDir}:/usr/local/bin:/usr/bin:/bin`,
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        OPENAI_API_KEY: OPENAI_KEY,
      });
      t.teardown(() => started.close());
      const { box } = started;
      const mode = ((await box.api('/health', { auth: false })).json['sandbox'] as { mode: string; namespaces: { active?: boolean } }) ?? {};
      t.equal(mode.mode, 'confined', 'agents run confined');
      t.comment(`agents run ${mode.namespaces.active ? 'in bubblewrap around the launcher' : 'under the launcher alone'}`);

      for (const [profile, script, standIn, realKey] of [
        ['claude', CLAUDE_FILE, anthropic, ANTHROPIC_KEY],
        ['codex', CODEX_FILE, openai, OPENAI_KEY],
      ] as const) {
        await t.test(`${profile}: edits a file in its workspace and finishes`, async (t) => {
          const before = standIn.calls.length;
          const res = await box.api('/v1/agents', { body: { profile, cols: 120, rows: 40 } });
          t.equal(res.status, 201, JSON.stringify(res.json));
          const agent = res.json['agent'] as Agent;
          current = agent;
          t.match(agent, { profile, tty: true });
          const ended = await waitFor(
            `${profile} to end`,
            async () =>
              ((a: Agent) => (a.state === 'running' || a.state === 'starting' ? undefined : a))(
                (await box.api(`/v1/agents/${agent.id}`)).json['agent'] as Agent,
              ),
            200_000,
          );
          const log = ((await box.api(`/v1/agents/${agent.id}/output`)).json['chunks'] as Array<{ text: string }>).map((c) => c.text).join('');
          t.match(ended, { state: 'exited', exitCode: 0 }, `${profile} exited 0 (output: ${JSON.stringify(log.slice(-1500))})`);

          const written = await readFile(path.join(box.paths.workspaceDir, profile, script.file), 'utf8').catch((err: Error) => `(${err.message})`);
          t.equal(written, script.content, `${script.file} is in the agent's workspace directory with what the model asked for`);

          const calls = standIn.calls.slice(before);
          t.ok(calls.length >= 2, `${calls.length} model calls (the tool call, then the answer after its result)`);
          t.same([...new Set(calls.map(credentialOf))], [realKey], 'every call reached the provider with the real key');
          const token = seen.get(agent.id)?.processes.find((p) => p.env['AGENTBOX_TOKEN'])?.env['AGENTBOX_TOKEN'];
          t.ok(token?.startsWith('abx_agent_'), "the agent's processes held its own token");
          t.notOk(
            calls.some((c) => JSON.stringify(c.headers).includes(token ?? '\0')),
            "the agent's token never reached the provider",
          );

          const processes = seen.get(agent.id)?.processes ?? [];
          const cli = processes.find((p) => (profile === 'claude' ? /claude/ : /codex/).test(p.cmdline) && !p.cmdline.startsWith('/bin/sh'));
          t.ok(cli, `the CLI's process was seen while it waited for its model (${processes.map((p) => p.cmdline.slice(0, 60)).join(' | ')})`);
          t.match(
            cli?.env,
            { [profile === 'claude' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL']: /^http:\/\/127\.0\.0\.1:\d+\/v1\/providers\// },
            'its base URL is the broker',
          );
          t.match(cli?.env, { HOME: /./, AGENTBOX_AGENT_NAME: profile });
          const keyVariable = profile === 'claude' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
          t.equal(cli?.env[keyVariable], cli?.env['AGENTBOX_TOKEN'], `${keyVariable} holds the agent's own token, not the provider's key`);
          t.not(cli?.env['HOME'], process.env['HOME'], "its HOME is the agent's private directory, not the box user's");
          for (const p of processes) {
            const text = JSON.stringify(p.env) + p.cmdline;
            t.notOk(
              text.includes(ANTHROPIC_KEY) || text.includes(OPENAI_KEY),
              `no provider key in the environment or command line of ${p.cmdline.slice(0, 40)}`,
            );
          }
          t.notOk(log.includes(ANTHROPIC_KEY) || log.includes(OPENAI_KEY), 'no provider key in its output');
          if (profile === 'claude') t.match(anthropic.toolResult, { isError: false }, 'Claude Code ran its file tool and reported success');
          else t.ok(openai.toolOutput !== undefined, 'Codex ran its shell tool and sent its output back');

          // A viewer attaching now gets the last screen: the CLI's final answer is on it.
          const viewer = await openViewer(box, agent.id);
          t.match(await viewer.screen(), script.finalText, 'the terminal shows the final answer');
          t.match(await viewer.closed, { code: 1000 });
        });
      }
    });
  }
});
