// `agentbox up --local [--manifest FILE]`: run the box on this host, in the foreground — the same
// entrypoint and generated supervisord config as the image, re-rooted under a local directory.
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { ruleContextFrom } from './rule-context.js';
import { UsageError, UserError } from './cli-errors.js';
import { repoPath } from './repo-path.js';
import { localModePrereqs } from './host-prereqs.js';
import { prepareLocalBox } from './local-box.js';
import { NixEvalError, NixNotFoundError } from './nix-eval.js';
import { waitUntilReady } from './wait-ready.js';
import { boxConsole } from './console-relay.js';
import { closeSync } from 'node:fs';
import { boxFacts } from '../../management-api/src/box-facts.js';

export const usage = `Usage: agentbox up --local [--manifest FILE] [--root DIR] [--quiet]

Run the box described by FILE (default ./agentbox.toml) on this host, in the foreground: render
its configs with the Nix library into DIR (default $AGENTBOX_ROOT or ./.agentbox), then run the
same entrypoint (stage A, supervisord, the seal) as the container image, as the current user.
Prints the API URL, the metrics URL and the API key file; Ctrl-C stops every programme in
reverse priority order.

Options:
  --local          run on this host (the only mode; containers: agentbox render, then docker-compose up)
  --manifest FILE  the manifest (default ./agentbox.toml)
  --root DIR       where the box keeps its state, configs and workspace (default ./.agentbox)
  --quiet          do not stream the programmes' logs to the terminal
  -h, --help       show this help

Environment: AGENTBOX_API_PORT / AGENTBOX_METRICS_PORT / AGENTBOX_EGRESS_PORT override the manifest's ports.
Exit codes: the box's exit status; 1 invalid manifest or missing prerequisite; 2 bad usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { local: { type: 'boolean' }, manifest: { type: 'string' }, root: { type: 'string' }, quiet: { type: 'boolean' }, 'target-arch': { type: 'string' } },
  });
  if (positionals.length) throw new UsageError(`unexpected argument "${String(positionals[0])}"`);
  if (!values.local) throw new UsageError('only --local is supported here; for containers run `agentbox render` and `docker-compose up`');
  const missing = localModePrereqs().filter((c) => !c.ok);
  if (missing.length) {
    throw new UserError(`missing prerequisites:\n${missing.map((c) => `  ${c.name}: ${c.detail}\n    fix: ${c.fix}`).join('\n')}`, 1);
  }
  const started = performance.now();
  const manifestFile = values.manifest ?? 'agentbox.toml';
  const root = path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox');
  let prepared;
  try {
    prepared = await prepareLocalBox(manifestFile, root, ruleContextFrom(values['target-arch']), process.env);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new UserError(`cannot read the manifest ${manifestFile}: no such file (create one with \`agentbox init\`)`, 1);
    if (err instanceof NixNotFoundError || err instanceof NixEvalError) throw new UserError(err.message, 1);
    throw err;
  }
  for (const d of prepared.validation.diagnostics) process.stderr.write(formatDiagnostic(manifestFile, d) + '\n');
  const box = prepared.box;
  if (!box) return 1;

  const say = (line: string) => process.stderr.write(`agentbox: ${line}\n`);
  say(`starting ${manifestFile} under ${box.paths.root}`);
  const output = values.quiet ? { stdio: 'ignore' as const, close: () => {} } : boxConsole();
  const child = spawn(repoPath(`config/bin/${boxFacts.image.entrypoint}`), [], {
    env: box.env,
    // Its own process group: Ctrl-C reaches only this command, which stops supervisord in order.
    detached: true,
    stdio: ['ignore', output.stdio, output.stdio],
  });
  if (typeof output.stdio === 'number') closeSync(output.stdio); // The child holds its own copy.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping || child.exitCode !== null) return;
    stopping = true;
    say(`${signal}: stopping every programme (reverse priority order)…`);
    child.kill('SIGTERM');
    // supervisord stops its programmes within their stopwaitsecs; past that, end the whole group.
    setTimeout(() => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    }, 20_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));

  const ready = await Promise.race([waitUntilReady(`${box.apiUrl}/ready`, () => stopping), exited.then(() => false)]);
  if (ready) {
    say(`ready in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    say(`API      ${box.apiUrl}  (GET /ready, /health, /v1/meta; docs at /docs/json)`);
    say(`dashboard ${box.apiUrl}/ui/  (sign in with the API key below)`);
    say(`metrics  ${box.metricsUrl}`);
    say(`API key  ${box.paths.apiKeyFile}  (send it as: Authorization: Bearer $(cat ${path.relative(process.cwd(), box.paths.apiKeyFile) || box.paths.apiKeyFile}))`);
    say('press Ctrl-C to stop');
  }
  const code = await exited;
  output.close();
  say(stopping ? 'stopped' : `the box exited with status ${code}`);
  return stopping && code === 0 ? 0 : code;
}
