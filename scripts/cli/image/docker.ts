// The Docker client the project drives: the distribution's (/usr/bin/docker), never whatever a
// newer client earlier on PATH would be, unless AGENTBOX_DOCKER names one.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const DISTRIBUTION_CLIENT = '/usr/bin/docker';

/** The docker command to run. */
export function dockerBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env['AGENTBOX_DOCKER']) return env['AGENTBOX_DOCKER'];
  return existsSync(DISTRIBUTION_CLIENT) ? DISTRIBUTION_CLIENT : 'docker';
}

/** Raised when the engine cannot be reached or refuses a command; the message carries its stderr. */
export class DockerError extends Error {
  override name = 'DockerError';
}

/** Run docker with `args` against the engine at DOCKER_HOST; resolves to its stdout. */
export function docker(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(dockerBinary(env), args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new DockerError(`cannot run ${dockerBinary(env)}: ${r.error.message} (install docker.io, or name a client with AGENTBOX_DOCKER)`);
  if (r.status !== 0) throw new DockerError(`docker ${args.join(' ')} failed (engine ${env['DOCKER_HOST'] ?? 'default'}): ${r.stderr.trim()}`);
  return r.stdout;
}

/** The id of image `ref` in the engine, or undefined when it has none. */
export function imageId(ref: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const r = spawnSync(dockerBinary(env), ['image', 'inspect', '--format', '{{.Id}}', ref], { env, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Load a `docker save` archive into the engine. */
export function dockerLoad(archive: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    execFileSync(dockerBinary(env), ['load', '--quiet', '--input', archive], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new DockerError(`docker load (engine ${env['DOCKER_HOST'] ?? 'default'}) failed: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`);
  }
}
