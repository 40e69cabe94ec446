// The table of subcommands: name, one-line summary, and how to load the module that runs it.
import { pathToFileURL } from 'node:url';
import { didYouMean } from './command-suggest.js';
import type { CommandEntry, CommandModule } from './command-types.js';
import { repoPath } from './repo-path.js';

export type { CommandEntry, CommandModule } from './command-types.js';

/**
 * Loads a command from the compiled tree (dist/scripts/cli) rather than from the bundled bin:
 * the commands that run services locate sibling files at run time, so they stay unbundled. The
 * manifest commands are bundled into the bin, which keeps `config validate` start-up small.
 */
function compiled(name: string): () => Promise<CommandModule> {
  return async () => (await import(pathToFileURL(repoPath(`dist/scripts/cli/${name}.js`)).href)) as CommandModule;
}

/** Every subcommand, in the order `agentbox --help` lists them. */
export const commands: readonly CommandEntry[] = [
  { name: 'config validate', summary: 'check a manifest (schema and rules); exit 0 valid, 1 errors, 2 unreadable', load: () => import('./config-validate.js') },
  { name: 'config show', summary: 'print the normalized manifest (every default applied) as JSON', load: () => import('./config-show.js') },
  { name: 'config explain', summary: 'explain a rule id (E001, W001, …) with a bad and a good example', load: () => import('./config-explain.js') },
  {
    name: 'policy test',
    summary: 'show which [policy] rule decides an action (spawn, egress, provider, egress-change) and why',
    load: () => import('./policy-test.js'),
  },
  { name: 'init', summary: 'write a commented starter agentbox.toml', load: () => import('./init.js') },
  { name: 'api', summary: 'run the management API (probes, /v1/meta, adapter routes) and its metrics listener', load: compiled('api') },
  { name: 'up', summary: 'run the box on this host (--local): the same entrypoint and supervisord config as the image', load: compiled('up') },
  { name: 'down', summary: 'stop the box running under a root (--root DIR), from any shell', load: compiled('down') },
  { name: 'boxes', summary: 'list the boxes running on this machine: root, ports, pid, ready (--json)', load: compiled('boxes') },
  { name: 'status', summary: 'show readiness, adapter slots and supervised programmes of a running box', load: compiled('status') },
  {
    name: 'mcp',
    summary: "serve the box's MCP tools and resources on stdio (an assistant starts and watches agents through it)",
    load: () => import('./mcp.js'),
  },
  { name: 'health', summary: 'scrape the metrics endpoint (found through /v1/meta) and summarise health', load: compiled('health') },
  { name: 'doctor', summary: 'check this host for running a box, with a fix for each failure', load: compiled('doctor') },
  {
    name: 'run',
    summary: 'start an agent (a profile, or -- COMMAND): -it on this terminal, -d detached, else its output until it ends',
    load: compiled('agents-run'),
  },
  { name: 'ps', summary: "list a running box's agents: id, name, command, state, pid, duration, how each ended (-a, --json)", load: compiled('agents-ps') },
  { name: 'logs', summary: "print an agent's output (-f to follow it, --tail N)", load: compiled('agents-logs') },
  {
    name: 'attach',
    summary: "join a tty agent's terminal (its screen first; Ctrl-P Ctrl-Q detaches), or follow a piped agent's output",
    load: compiled('agents-attach'),
  },
  { name: 'exec', summary: "run a command in a running agent's sandbox, directory and identity (-it, -d)", load: compiled('agents-exec') },
  { name: 'cp', summary: "copy files and directories between this machine and an agent's workspace (AGENT:PATH), either way", load: compiled('cp') },
  {
    name: 'snapshot create',
    summary: "snapshot an agent's working directory (content-addressed, deduplicated; --label)",
    load: compiled('snapshot-create'),
  },
  { name: 'snapshot ls', summary: "list the box's workspace snapshots: agent, size, bytes each added (--agent, --json)", load: compiled('snapshot-ls') },
  {
    name: 'snapshot show',
    summary: 'one snapshot: what it holds, shares with others, frees when deleted and is charged (--json)',
    load: compiled('snapshot-show'),
  },
  {
    name: 'snapshot diff',
    summary: 'what changed from one snapshot to another: paths added, modified, deleted (--json)',
    load: compiled('snapshot-diff'),
  },
  { name: 'snapshot files', summary: 'list a directory of a snapshot, read from the store without forking it (--json)', load: compiled('snapshot-files') },
  { name: 'snapshot cat', summary: 'print a file of a snapshot, read from the store without forking it', load: compiled('snapshot-cat') },
  {
    name: 'snapshot warm',
    summary: 'keep N copies of a snapshot built ahead, so its forks start without copying (--wait)',
    load: compiled('snapshot-warm'),
  },
  { name: 'snapshot rm', summary: 'delete snapshots; chunks no other snapshot refers to are freed', load: compiled('snapshot-rm') },
  {
    name: 'snapshot prune',
    summary: "delete the snapshots a rule no longer keeps: each agent name's --keep N newest, --older-than AGE (--dry-run)",
    load: compiled('snapshot-prune'),
  },
  {
    name: 'snapshot restore',
    summary: "replace an ended agent's working directory with a snapshot (forks: run --from-snapshot)",
    load: compiled('snapshot-restore'),
  },
  {
    name: 'backup keygen',
    summary: "make an age identity file for sealing backups' secrets to its recipient key (printed)",
    load: compiled('backup-keygen'),
  },
  {
    name: 'backup verify',
    summary: 'check a backup without restoring it: every file against its SHA-256, the event log against its checkpoint',
    load: compiled('backup-verify'),
  },
  {
    name: 'backup',
    summary: "back up a running box's state (stores, event log, pods, snapshots; --with-secrets sealed) into a new directory",
    load: compiled('backup'),
  },
  { name: 'restore', summary: 'restore a backup into a new root, checked whole first', load: compiled('restore') },
  { name: 'kill', summary: 'end agents: SIGTERM, SIGKILL after --grace (--signal KILL: at once)', load: compiled('agents-kill') },
  {
    name: 'approvals',
    summary: "list the approval requests a running box holds (supervised agents' asks) with the time left (--json)",
    load: compiled('approvals'),
  },
  {
    name: 'approve',
    summary: 'approve a pending approval request: --reason, --scope once|agent|until=TIME, --sign-key-file for a signed decision',
    load: compiled('approve'),
  },
  { name: 'deny', summary: 'deny a pending approval request: --reason, --sign-key-file for a signed decision', load: compiled('deny') },
  {
    name: 'inputs',
    summary: 'list the agents of a running box waiting for a person: the prompt and the last screen lines (--json)',
    load: compiled('inputs'),
  },
  {
    name: 'answer',
    summary: "answer an input request: TEXT typed into the agent's terminal, then Enter (--no-enter); - reads stdin",
    load: compiled('answer'),
  },
  { name: 'identity', summary: "print the box's Nostr identity (npub, hex public key, did:nostr), creating or importing its key", load: compiled('identity') },
  {
    name: 'events verify',
    summary:
      "check the event log's hash chain, and with --against a signed checkpoint (or, with --remote URL, a running box against it); exit 0 intact, 1 naming the first bad line or a truncated, rewritten or forked log, 2 unreadable",
    load: () => import('./events-verify.js'),
  },
  {
    name: 'audit',
    summary: "list the decisions in the box's event log and which checkpoints a witness cosigned (--since, --agent, --json)",
    load: () => import('./audit.js'),
  },
  {
    name: 'agents lock',
    summary: 'write agents.lock.json beside the manifest: the npm lock of its [agents] npm CLIs, which the Nix image fetches',
    load: compiled('agents-lock'),
  },
  {
    name: 'image build',
    summary: 'build the test image of a manifest offline from this machine (the production image: nix build .#image); --load into DOCKER_HOST',
    load: compiled('image-build'),
  },
  {
    name: 'render',
    summary: 'generate docker-compose.yml, supervisord.conf, image-config.json and artifacts.json from a manifest (offline, via Nix)',
    load: compiled('render'),
  },
];

/** The command named by the first one or two words of argv, and how many words it used. */
export function findCommand(argv: readonly string[]): { command: CommandEntry; words: number } | undefined {
  const two = argv.slice(0, 2).join(' ');
  const byTwo = commands.find((c) => c.name === two);
  if (byTwo) return { command: byTwo, words: 2 };
  const byOne = commands.find((c) => c.name === argv[0]);
  if (byOne) return { command: byOne, words: 1 };
  // `agentbox config` alone (or with --help): list its subcommands.
  const group = commands.filter((c) => c.name.startsWith(`${argv[0]} `));
  if (group.length) return { command: groupCommand(String(argv[0]), group), words: 1 };
  return undefined;
}

function groupCommand(group: string, members: CommandEntry[]): CommandEntry {
  const usage = [`Usage: agentbox ${group} <subcommand> [options]`, '', 'Subcommands:', ...members.map((m) => `  ${m.name.padEnd(18)}  ${m.summary}`)].join(
    '\n',
  );
  return {
    name: group,
    summary: '',
    load: async () => ({
      usage,
      run: async (args) => {
        const wantsHelp = args.includes('--help') || args.includes('-h');
        const subcommands = members.map((m) => m.name.slice(group.length + 1));
        const unknown =
          !wantsHelp && args[0] !== undefined
            ? `agentbox ${group}: unknown subcommand "${args[0]}"${didYouMean(`agentbox ${group} `, args[0], subcommands)}\n\n`
            : '';
        (wantsHelp ? process.stdout : process.stderr).write(`${unknown}${usage}\n`);
        return wantsHelp ? 0 : 2;
      },
    }),
  };
}
