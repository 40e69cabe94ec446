// A throwaway PostgreSQL cluster (Debian's server binaries) on 127.0.0.1 for tests that need a real, plain Postgres.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

/** A running cluster. */
export interface PostgresCluster {
  port: number;
  /** Connection string with a password (trust authentication ignores it; tests use it to check redaction). */
  url: string;
  /** Stop the server and remove its directory. */
  stop(): Promise<void>;
}

/** The newest Debian server binaries, or undefined when none are installed. */
export function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined;
}

/**
 * initdb a cluster in a temporary directory and start it on 127.0.0.1 and a free port with trust
 * authentication. Postgres refuses to run as root, so as root the directory is handed to the
 * `postgres` user and the binaries run through `runuser -u postgres --`.
 */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(root, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
  }
  const run = (cmd: string, args: string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  const data = path.join(root, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  // Unix socket in the private directory, TCP on loopback only; fsync off: the data is thrown away.
  run('pg_ctl', [
    '-D',
    data,
    '-w',
    '-t',
    '60',
    '-l',
    path.join(root, 'server.log'),
    '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off`,
    'start',
  ]);
  let stopped = false;
  return {
    port,
    url: `postgres://postgres:pg-test-secret-7f3a@127.0.0.1:${port}/postgres`,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
