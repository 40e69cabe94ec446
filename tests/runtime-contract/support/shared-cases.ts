// RC cases written once against any running box — on the host (box-runner.ts) or in a container
// from the generated compose file (tests/e2e) — through the small interface below.
import type { Test } from 'tap';
import { statusOf, waitForStatus } from './box-runner.js';
import { waitFor } from '../../helpers/wait.js';

/** What the shared cases need of a running box. */
export interface RunningBox {
  /** Base URL of the API as this test process reaches it. */
  apiUrl: string;
  /** supervisorctl with the box's generated config, resolving to its stdout. */
  supervisorctl(...args: string[]): string;
  /** SIGKILL a process of the box (by its pid as the box sees it). */
  kill(pid: number): void;
  /** Every process of the box: command line and environment. */
  processes(): Array<{ cmd: string; env: string }>;
  /** The API key and the identity key, as stored on the state volume. */
  secrets(): { apiKey: string; identity: string };
  /** Everything the box logged so far. */
  logs(): string;
}

/** RC-06: killing the API makes supervisord restart it and readiness recovers. */
export async function rc06KilledApiRestarts(t: Test, box: Pick<RunningBox, 'apiUrl' | 'supervisorctl' | 'kill'>): Promise<void> {
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  const pid = Number(box.supervisorctl('pid', 'management-api').trim());
  t.ok(pid > 1, `API pid ${pid}`);
  box.kill(pid);
  await waitFor('the API to go away', async () => (await statusOf(`${box.apiUrl}/livez`)) !== 200, 10_000);
  await waitForStatus(`${box.apiUrl}/ready`, 200, 30_000);
  t.not(Number(box.supervisorctl('pid', 'management-api').trim()), pid, 'a new API process serves');
}

/** RC-08: no secret in the environment of any process of the box, nor in its logs. */
export async function rc08NoSecretInEnvironmentOrLogs(t: Test, box: Pick<RunningBox, 'apiUrl' | 'processes' | 'secrets' | 'logs'>): Promise<void> {
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  const { apiKey, identity } = box.secrets();
  t.ok(apiKey.length >= 32 && identity.length === 64, 'both secrets exist');
  // Let the key cross the API once.
  const meta = await fetch(`${box.apiUrl}/v1/meta`, { headers: { authorization: `Bearer ${apiKey}` } });
  t.equal(meta.status, 200);
  const procs = box.processes();
  t.ok(
    procs.some((p) => /supervisord/.test(p.cmd)) && procs.some((p) => /box\/management-api\.js/.test(p.cmd)) && procs.some((p) => /seal-listener/.test(p.cmd)),
    `supervisord, the API and the seal listener among ${procs.length} processes inspected`,
  );
  for (const p of procs) {
    t.notOk(p.env.includes(apiKey), `API key not in the environment of ${p.cmd.slice(0, 50)}`);
    t.notOk(p.env.includes(identity), `identity key not in the environment of ${p.cmd.slice(0, 50)}`);
  }
  const log = box.logs();
  t.notOk(log.includes(apiKey), 'API key not in the logs');
  t.notOk(log.includes(identity), 'identity key not in the logs');
}
