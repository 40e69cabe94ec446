// `agentbox up --local [--manifest FILE]`: run the box on this host, in the foreground (or, with
// --detach, in the background) — the same entrypoint and generated supervisord config as the
// image, re-rooted under a local directory.
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
import { wakeSupervisord } from '../../management-api/src/boot/supervisor-wake.js';
import { boxConsole } from './console-relay.js';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { portInUseLine } from '../../management-api/src/box-ports.js';
import { installedLauncher } from '../../management-api/src/sandbox/launcher-binary.js';
import { listenerUrl } from '../../management-api/src/grammar/url.js';
import { checkBoxPorts, setsKey } from './port-check.js';
import { parseToml } from '../../management-api/src/manifest/parse-toml.js';
import { lockRegistry, registerBox, runningBoxes, runningSupervisor, unregisterBox } from './box-registry.js';
import { readStat } from '../../management-api/src/sandbox/limits/proc-stat.js';

export const usage = `Usage: agentbox up --local [--manifest FILE] [--root DIR] [--quiet] [--detach]

Run the box described by FILE (default ./agentbox.toml) on this host, in the foreground: render
its configs with the Nix library into DIR (default $AGENTBOX_ROOT or ./.agentbox), then run the
same entrypoint (stage A, supervisord, the seal) as the container image, as the current user.
Every port the box binds is checked first: one already in use stops the start with a line naming
the port, the programme, the manifest key and the variable that moves it.
Prints the API URL, the metrics URL and the API key file; Ctrl-C stops every programme in
reverse priority order. The box never outlives this command (even kill -9 of it stops the box),
unless --detach: then it runs on in the background once ready, until \`agentbox down\`.

Options:
  --local          run on this host (the only mode; containers: agentbox render, then docker-compose up)
  --manifest FILE  the manifest (default ./agentbox.toml)
  --root DIR       where the box keeps its state, configs and workspace (default ./.agentbox)
  --quiet          do not stream the programmes' logs to the terminal
  --detach         return once the box is ready and leave it running; its output goes to
                   box.log in the box's log directory (printed); stop it: agentbox down --root DIR
  -h, --help       show this help

Environment: AGENTBOX_API_PORT / AGENTBOX_METRICS_PORT / AGENTBOX_EGRESS_PORT / AGENTBOX_RELAY_PORT
override the manifest's ports (0 = a free port, chosen before the start). \`agentbox boxes\` lists running boxes.
Exit codes: the box's exit status; 1 invalid manifest, missing prerequisite, a port in use, a
programme that cannot start or a failed stage B; 2 bad usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      local: { type: 'boolean' },
      manifest: { type: 'string' },
      root: { type: 'string' },
      quiet: { type: 'boolean' },
      detach: { type: 'boolean' },
      'target-arch': { type: 'string' },
    },
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
  // Before rendering: the configs of a running box must not change under it.
  const running = runningSupervisor(root);
  if (running)
    throw new UserError(
      `a box is already running under ${root} (supervisord pid ${running}); stop it with \`agentbox down --root ${root}\`, or use another --root`,
      1,
    );
  let prepared: Awaited<ReturnType<typeof prepareLocalBox>>;
  try {
    prepared = await prepareLocalBox(manifestFile, root, ruleContextFrom(values['target-arch']), process.env);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new UserError(`cannot read the manifest ${manifestFile}: no such file (create one with \`agentbox init\`)`, 1);
    if (err instanceof NixNotFoundError || err instanceof NixEvalError) throw new UserError(err.message, 1);
    throw err;
  }
  for (const d of prepared.validation.diagnostics) process.stderr.write(`${formatDiagnostic(manifestFile, d)}\n`);
  const box = prepared.box;
  if (!box) return 1;

  const say = (line: string) => process.stderr.write(`agentbox: ${line}\n`);
  const m = prepared.validation.manifest!;
  // Before anything starts: a port taken now would only fail a programme later. A port the
  // manifest leaves at its default moves to a free one (a second box beside the first); one it sets must be free.
  // Under the registry's lock until the box is recorded: ports other boxes are starting on count as taken.
  const raw = parseToml(readFileSync(manifestFile, 'utf8'));
  const release = await lockRegistry();
  const reserved = new Set(runningBoxes().flatMap((b) => b.ports.map((p) => p.port)));
  const ports = await checkBoxPorts(m, box.env, (key) => raw.ok && setsKey(raw.value, key), reserved);
  if (ports.taken.length) {
    release();
    throw new UserError(ports.taken.map((p) => portInUseLine(p)).join('\n'), 1);
  }
  for (const p of ports.moved)
    say(`port ${p.from} (the ${p.name}'s default) is in use: using ${p.port}; set ${p.key} in the manifest or ${p.envVar} to require a port`);
  Object.assign(box.env, ports.chosen);
  const apiPort = ports.ports.find((p) => p.envVar === 'AGENTBOX_API_PORT')!.port;
  const metricsPort = ports.ports.find((p) => p.envVar === 'AGENTBOX_METRICS_PORT')!.port;
  box.apiUrl = listenerUrl(m.api.bind, apiPort);
  box.metricsUrl = listenerUrl(m.observability.metrics_bind, metricsPort, '/metrics');

  const detach = values.detach === true;
  const entrypoint = repoPath(`config/bin/${boxFacts.image.entrypoint}`);
  // Attached, the entrypoint runs with SIGTERM as its parent-death signal, which survives its exec
  // of supervisord: when this command dies, however it dies, supervisord stops the box in order.
  const launcher = installedLauncher();
  if (!detach && !existsSync(launcher))
    throw new UserError(`the sandbox launcher ${launcher} is not built; build it with \`node scripts/build/build-launcher.mjs\` (npm start does)`, 1);
  const argv = detach ? [entrypoint] : [launcher, '--parent-death', '--', entrypoint];
  // The box's own programmes watch this process too (programme/parent-watch.ts): they stop at once, not when supervisord next wakes.
  if (!detach) box.env['AGENTBOX_OWNER_PID'] = String(process.pid);
  // This command wakes supervisord out of its first one-second poll (boot/supervisor-wake.ts),
  // rather than the entrypoint starting a Node process of its own for that on every boot.
  box.env['AGENTBOX_WAKER'] = 'owner';
  say(`starting ${manifestFile} under ${box.paths.root}`);
  const logFile = path.join(box.paths.logDir, 'box.log');
  if (detach) mkdirSync(box.paths.logDir, { recursive: true });
  const output = detach
    ? { stdio: openSync(logFile, 'a', 0o600), close: () => {} }
    : values.quiet
      ? { stdio: 'ignore' as const, close: () => {} }
      : boxConsole();
  const child = spawn(argv[0]!, argv.slice(1), {
    env: box.env,
    // Its own process group: Ctrl-C reaches only this command, which stops supervisord in order.
    detached: true,
    stdio: ['ignore', output.stdio, output.stdio],
  });
  if (typeof output.stdio === 'number') closeSync(output.stdio); // The child holds its own copy.
  void wakeSupervisord(box.paths.supervisorSocket);
  const supervisorPid = child.pid!;
  registerBox({
    root: box.paths.root,
    manifest: path.resolve(manifestFile),
    pid: supervisorPid,
    ...(readStat(supervisorPid) ? { pidStartTime: readStat(supervisorPid)!.startTime } : {}),
    ...(detach ? {} : { upPid: process.pid }),
    supervisordConf: box.paths.supervisordConf,
    apiUrl: box.apiUrl,
    metricsUrl: box.metricsUrl,
    ports: ports.ports.map((p) => ({ name: p.name, port: p.port })),
    startedAt: new Date().toISOString(),
  });
  release();
  let stopping = false;
  const stop = (signal: NodeJS.Signals | 'failed') => {
    if (stopping || child.exitCode !== null) return;
    stopping = true;
    if (signal !== 'failed') say(`${signal}: stopping every programme (reverse priority order)…`);
    child.kill('SIGTERM');
    // supervisord stops its programmes within their stopwaitsecs; past that, end the whole group.
    setTimeout(() => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    }, 20_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  let ended = false;
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      unregisterBox(box.paths.root, supervisorPid);
      resolve(code ?? (signal ? 128 : 1));
    }),
  );

  // Ready, or a boot that cannot be (a programme that cannot start, a failed stage B: the seal listener's marker), or the box ended.
  let failure: string | undefined;
  const failed = () => {
    failure ??= finalFailure(box.paths.bootstrapFailedFile);
    return failure !== undefined;
  };
  // The wait ends with the box too: left polling, it would keep this command from ever exiting after a box that ended before it was ready.
  const ready = await Promise.race([waitUntilReady(`${box.apiUrl}/ready`, box.paths.sealFile, () => stopping || ended || failed()), exited.then(() => false)]);
  if (failure) {
    say(failure);
    stop('failed');
  } else if (ready) {
    say(`ready in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    say(`API      ${box.apiUrl}  (GET /ready, /health, /v1/meta; docs at /docs/json)`);
    say(`dashboard ${box.apiUrl}/ui/  (sign in with the API key below)`);
    say(`metrics  ${box.metricsUrl}`);
    say(
      `API key  ${box.paths.apiKeyFile}  (send it as: Authorization: Bearer $(cat ${path.relative(process.cwd(), box.paths.apiKeyFile) || box.paths.apiKeyFile}))`,
    );
    if (detach) {
      say(`running in the background (supervisord pid ${supervisorPid}); log ${logFile}; stop it with: agentbox down --root ${box.paths.root}`);
      child.unref();
      return 0;
    }
    say('press Ctrl-C to stop');
  } else if (detach && !stopping) {
    say(`the box did not start; see ${logFile}`);
  }
  const code = await exited;
  output.close();
  if (failure) return 1;
  say(stopping ? 'stopped' : `the box exited with status ${code}`);
  return stopping && code === 0 ? 0 : code;
}

/**
 * Why this boot can never be ready, once the seal listener has recorded it: a required programme
 * that cannot start (its line as is), or stage B's failure. A seal timeout is not final (the box
 * seals if the programmes come up later), so it is not one.
 */
function finalFailure(markerFile: string): string | undefined {
  try {
    const marker = JSON.parse(readFileSync(markerFile, 'utf8')) as { reason?: unknown; program?: unknown; timeout?: unknown };
    if (typeof marker.reason !== 'string' || marker.timeout === true) return undefined;
    return typeof marker.program === 'string' ? marker.reason : `bootstrap failed: ${marker.reason}`;
  } catch {
    return undefined;
  }
}
