// A box whose port something else holds, started past `agentbox up`'s own check (the image, or a
// port taken in between): the programme that cannot listen is not restarted, the seal listener
// records its one line (port, programme, manifest key, override variable), /ready gives that line,
// and the box does not announce BootstrapCompleted again and again.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { BOOT_ONLY_MANIFEST, startBox, type BoxRun } from '../runtime-contract/support/box-runner.js';
import { waitFor } from '../helpers/wait.js';

/** A listener on a free loopback port, held for the test. */
async function holdPort(t: Test): Promise<number> {
  const holder: Server = createServer();
  await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', () => ok()));
  t.teardown(() => holder.close());
  return (holder.address() as { port: number }).port;
}

/** supervisord's state name for `program`. */
function stateOf(box: BoxRun, program: string): string {
  const conf = path.join(box.hostRoot, 'etc/agentbox/supervisord.conf');
  return spawnSync('supervisorctl', ['-c', conf, 'status', program], { encoding: 'utf8' }).stdout.trim().split(/\s+/)[1] ?? '';
}

/** The failure marker the seal listener wrote, once it names `program`. */
function markerOf(box: BoxRun, program: string): Promise<{ reason: string; program: string }> {
  const file = path.join(box.hostRoot, 'run/agentbox/bootstrap.failed');
  return waitFor(`the failure marker of ${program}`, () => {
    if (!existsSync(file)) return undefined;
    const marker = JSON.parse(readFileSync(file, 'utf8')) as { reason: string; program?: string };
    return marker.program === program ? (marker as { reason: string; program: string }) : undefined;
  });
}

t.test('the egress proxy on a taken port: EXITED for good, the line in /ready, no re-announced BootstrapCompleted', async (t) => {
  const port = await holdPort(t);
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST, env: { AGENTBOX_EGRESS_PORT: String(port) } });
  t.teardown(() => box.stop());
  const marker = await markerOf(box, 'egress-proxy');
  const line = `port ${port} on 127.0.0.1 is already in use: the egress proxy (programme egress-proxy, manifest key sandbox.egress.port, override AGENTBOX_EGRESS_PORT)`;
  t.ok(marker.reason.startsWith(line), `the marker's reason names the port, programme, key and variable: ${marker.reason}`);
  // supervisord counts the start-failure status as expected: EXITED, and never started again.
  t.equal(stateOf(box, 'egress-proxy'), 'EXITED');
  const ready = await waitFor('/ready to give the line', async () => {
    const res = await fetch(`${box.apiUrl}/ready`).catch(() => undefined);
    const body = res ? ((await res.json()) as { ready: boolean; reason?: string }) : undefined;
    return body?.reason?.includes(line) ? { status: res!.status, body } : undefined;
  });
  t.equal(ready.status, 503);
  t.equal(stateOf(box, 'egress-proxy'), 'EXITED', 'still not restarted while the API came up');
  const events = box.events();
  t.equal(events.filter((e) => e.event === 'EgressProxyFailed').length, 1, 'the proxy was started once');
  t.ok(
    events.some((e) => e.event === 'RequiredProgramFailed' && e['program'] === 'egress-proxy'),
    'the seal listener reports the programme',
  );
  // RUNNING at spawn (startsecs 0): the seal may come a moment before the proxy finds its port taken, never again after.
  t.ok(events.filter((e) => e.event === 'BootstrapCompleted').length <= 1, 'BootstrapCompleted at most once');
  t.notOk(
    events.some((e) => e.event === 'BootstrapResealed'),
    'never re-sealed',
  );
});

t.test("the API's port taken: the API is not restarted and the marker names api.port and AGENTBOX_API_PORT", async (t) => {
  const port = await holdPort(t);
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST, env: { AGENTBOX_API_PORT: String(port) } });
  t.teardown(() => box.stop());
  const marker = await markerOf(box, 'management-api');
  t.match(
    marker.reason,
    new RegExp(
      `^port ${port} on 127\\.0\\.0\\.1 is already in use: the API \\(programme management-api, manifest key api\\.port, override AGENTBOX_API_PORT\\)`,
    ),
  );
  t.equal(stateOf(box, 'management-api'), 'EXITED');
  t.equal(box.events().filter((e) => e.event === 'ApiStartFailed').length, 1, 'started once, no paced restarts');
});
