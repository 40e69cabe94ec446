// Agents spawned through a test server's API, and what their processes were given.
import { readFile } from 'node:fs/promises';
import type { TestServer } from './harness.js';

/** An agent's record as the spawn answers it. */
export type SpawnedAgent = { id: string; pid: number; state: string };

/** POST /v1/agents on `box` with the operator key; throws with the body unless 201. */
export async function spawnAgent(box: TestServer, name: string, command: string, args: string[]): Promise<SpawnedAgent> {
  const res = await box.api('/v1/agents', { body: { name, command, args } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return res.json['agent'] as SpawnedAgent;
}

/** The environment process `pid` started with, from /proc. */
export async function environOf(pid: number): Promise<Record<string, string>> {
  return Object.fromEntries(
    (await readFile(`/proc/${pid}/environ`, 'utf8'))
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}
