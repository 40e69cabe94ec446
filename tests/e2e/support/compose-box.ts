// A box run the way a user runs it: a manifest in a directory, `agentbox render`, `agentbox image
// build --load`, then docker-compose with the generated file, against a private Docker engine.
import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { boxFacts } from '../../../management-api/src/box-facts.js';
import { docker, dockerBinary } from '../../../scripts/cli/image/docker.js';
import type { PrivateEngine } from '../../../scripts/cli/image/private-engine.js';
import { statusOf } from '../../runtime-contract/support/box-runner.js';
import { freePort } from '../../helpers/free-port.js';
import { repoRoot } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { eventLines } from '../../helpers/boot-event-lines.js';

/** The result of a command. */
export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The parts of `docker inspect` of the container the cases read. */
export interface ContainerInspect {
  HostConfig: Record<string, unknown> & { SecurityOpt: string[] | null; ReadonlyRootfs: boolean };
  Config: { Labels: Record<string, string> };
  State: { ExitCode: number; Health?: { Status: string } };
}

/** A box directory with its rendered compose file and loaded image. */
export interface ComposeBox {
  dir: string;
  project: string;
  apiUrl: string;
  metricsUrl: string;
  /** docker-compose -p <project> -f docker-compose.yml <args>, in the box directory. */
  compose(...args: string[]): Run;
  /** The service's container id (the current one). */
  container(): string;
  /** Run argv inside the container (docker exec), resolving to stdout; throws on failure. */
  exec(...argv: string[]): string;
  /** docker inspect of the container. */
  inspect(): ContainerInspect;
  /** The container's logs (stdout and stderr). */
  logs(): string;
  /** The box's event lines from the logs. */
  events(): Array<Record<string, unknown> & { event: string }>;
  /** The API key, read from the state volume inside the container. */
  apiKey(): string;
  /** An authenticated JSON call through the published API port; `T`: the fields of the answer the caller reads. */
  call<T = Record<string, unknown>>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Wait for the compose healthcheck to say healthy. */
  waitHealthy(timeoutMs?: number): Promise<void>;
}

const cli = (args: string[], cwd: string, env: NodeJS.ProcessEnv): Run => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'dist/bin/agentbox.js'), ...args], { cwd, env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

/**
 * Write the manifest `manifest(ports)` to a new directory, render it, build and load its image,
 * all through the CLI as the quickstart does. The workspace is created owned by the box's user.
 */
export async function prepareBox(
  engine: PrivateEngine,
  manifest: (ports: { api: number; metrics: number }) => string,
  options: {
    /** Where the box's directory (its workspace) is made; the temporary directory by default. */
    parentDir?: string;
    /** A compose file laid over the generated one (`docker-compose.override.yml`), as an operator adds one; the generated file itself stays unchanged. */
    override?: string;
  } = {},
): Promise<ComposeBox> {
  const dir = mkdtempSync(path.join(options.parentDir ?? tmpdir(), 'agentbox-e2e-compose-'));
  // Below the ephemeral range: Docker's DNS resolver in the container holds ports from it (free-port.ts).
  const ports = { api: await freePort(), metrics: await freePort() };
  writeFileSync(path.join(dir, 'agentbox.toml'), manifest(ports));
  mkdirSync(path.join(dir, 'workspace'));
  chownSync(path.join(dir, 'workspace'), boxFacts.image.uid, boxFacts.image.gid);
  const env = { ...engine.env };
  for (const args of [
    ['render', '--out', '.'],
    ['image', 'build', '--load'],
  ]) {
    const r = cli(args, dir, env);
    if (r.status !== 0) throw new Error(`agentbox ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  if (options.override) writeFileSync(path.join(dir, 'docker-compose.override.yml'), options.override);
  const project = path
    .basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  const compose = (...args: string[]): Run => {
    const files = ['-f', 'docker-compose.yml', ...(options.override ? ['-f', 'docker-compose.override.yml'] : [])];
    const r = spawnSync('docker-compose', ['-p', project, ...files, ...args], { cwd: dir, env, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const container = (): string => compose('ps', '-q', 'agentbox').stdout.trim();
  // Both streams, in the order the lines were written: docker keeps stdout and stderr apart, so
  // they are merged by the timestamps it records (RFC 3339, nanoseconds: they sort as text).
  const logs = (): string => {
    const r = spawnSync(dockerBinary(env), ['logs', '--timestamps', container()], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const lines = `${r.stdout}\n${r.stderr}`.split('\n').filter(Boolean);
    return lines
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([, text]) => text)
      .join('\n');
  };
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  const box: ComposeBox = {
    dir,
    project,
    apiUrl,
    metricsUrl: `http://127.0.0.1:${ports.metrics}/metrics`,
    compose,
    container,
    exec: (...argv) => docker(['exec', container(), ...argv], env),
    inspect: () => (JSON.parse(docker(['inspect', container()], env)) as ContainerInspect[])[0]!,
    logs,
    events: () => eventLines(logs().split('\n')),
    apiKey: () => docker(['exec', container(), 'cat', boxFacts.runtime.files.apiKeyFile], env).trim(),
    call: async <T>(method: string, url: string, body?: unknown) => {
      const res = await fetch(apiUrl + url, {
        method,
        headers: { authorization: `Bearer ${box.apiKey()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
    waitHealthy: async (timeoutMs = 90_000) => {
      await waitFor('the compose healthcheck to say healthy', () => box.inspect()['State']?.['Health']?.['Status'] === 'healthy', timeoutMs, 500);
    },
  };
  return box;
}

/** Take the box down with its volume and remove its directory (for teardown). */
export function removeBox(box: ComposeBox): void {
  box.compose('down', '-v', '--timeout', '5');
  rmSync(box.dir, { recursive: true, force: true });
}

/** GET `url` from the host; 0 when nothing answers. */
export { statusOf };

/** Every process in the container: uid line, CapEff, NoNewPrivs, command line (read from /proc inside). */
export function containerProcesses(box: ComposeBox): Array<{ pid: number; cmd: string; uids: string; capEff: string; noNewPrivs: string; env: string }> {
  const script = `const fs=require('fs');const out=[];for(const p of fs.readdirSync('/proc').filter(n=>/^\\d+$/.test(n))){try{const s=fs.readFileSync('/proc/'+p+'/status','utf8');const f=(k)=>(new RegExp('^'+k+':\\\\s+(.*)$','m').exec(s)||[])[1];out.push({pid:+p,cmd:fs.readFileSync('/proc/'+p+'/cmdline','utf8').replace(/\\0/g,' ').trim(),uids:f('Uid'),capEff:f('CapEff'),noNewPrivs:f('NoNewPrivs'),env:fs.readFileSync('/proc/'+p+'/environ','utf8')})}catch{}}process.stdout.write(JSON.stringify(out))`;
  return JSON.parse(box.exec('node', '-e', script)) as ReturnType<typeof containerProcesses>;
}

/** Wait until the API answers `status` on /ready through the published port. */
export function waitReady(box: ComposeBox, status = 200, timeoutMs = 60_000): Promise<boolean> {
  return waitFor(`${box.apiUrl}/ready to answer ${status} from the host`, async () => (await statusOf(`${box.apiUrl}/ready`)) === status, timeoutMs, 100);
}

/** `supervisorctl <args>` inside the container, with the generated config. */
export function supervisorctl(box: ComposeBox, ...args: string[]): string {
  return box.exec('supervisorctl', '-c', boxFacts.runtime.files.supervisordConf, ...args);
}

/** Run this file's tests only when the e2e suite is not explicitly skipped. */
export const e2eSkipped = process.env['AGENTBOX_E2E'] === 'skip';
