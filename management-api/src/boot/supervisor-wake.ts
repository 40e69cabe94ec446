// Wakes a freshly started supervisord so it spawns its programmes at once. supervisord 4.2's main
// loop polls its sockets for up to one second before the first state transition; any request on
// its control socket ends that wait early. The entrypoint starts it beside supervisord (in the
// image and in the local mode alike): a second off every boot.
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const GET_STATE = '<?xml version="1.0"?><methodCall><methodName>supervisor.getState</methodName><params/></methodCall>';

/** Wait (up to `timeoutMs`) for the control socket, then send one harmless XML-RPC call. */
export async function wakeSupervisord(socketPath: string, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(socketPath)) {
      const ok = await new Promise<boolean>((resolve) => {
        const req = request(
          { socketPath, path: '/RPC2', method: 'POST', headers: { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(GET_STATE) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode === 200));
          },
        );
        req.on('error', () => resolve(false));
        req.end(GET_STATE);
      });
      if (ok) return true;
    }
    await sleep(10);
  }
  return false;
}
