// The files bench's client in a process of its own, as a user's client is: it takes its orders as JSON lines on stdin (so the
// key is in no argument) — round trips of one file, or a download read to its end — and answers each with a JSON line of times.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

export interface ClientOrders {
  op: 'round-trips';
  apiUrl: string;
  key: string;
  path: string;
  rounds: number;
  warmup: number;
  bytes: number;
}

export interface ClientTimes {
  put: number[];
  get: number[];
  both: number[];
}

/** PUT then GET of one file, `rounds` times after `warmup` untimed ones. */
export async function roundTrips(o: ClientOrders): Promise<ClientTimes> {
  const auth = { authorization: `Bearer ${o.key}` };
  const payload = randomBytes(o.bytes);
  const times: ClientTimes = { put: [], get: [], both: [] };
  for (let i = 0; i < o.rounds + o.warmup; i++) {
    const s = performance.now();
    const p = await fetch(o.apiUrl + o.path, { method: 'PUT', headers: auth, body: payload });
    await p.arrayBuffer();
    const m = performance.now();
    const g = await fetch(o.apiUrl + o.path, { headers: auth });
    const got = await g.arrayBuffer();
    const e = performance.now();
    if (p.status >= 300 || got.byteLength !== o.bytes) throw new Error(`files bench: round trip ${p.status}/${g.status}`);
    if (i < o.warmup) continue;
    times.put.push(m - s);
    times.get.push(e - m);
    times.both.push(e - s);
  }
  return times;
}

/**
 * A download of `path` read to its end, as a client that keeps nothing reads it: by `fetch` (a web
 * stream, as `agentbox cp` reads it), or by `node:http` (a plain socket reader, as `cat` is to tar
 * in the local baseline). The default is fetch.
 */
export interface DownloadOrder {
  op: 'download';
  apiUrl: string;
  key: string;
  path: string;
  via?: 'fetch' | 'http';
}

/** Wall time (ms) and bytes of a download read to its end. */
export async function download(o: Omit<DownloadOrder, 'op'>): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const bytes = o.via === 'http' ? await readByHttp(o) : await readByFetch(o);
  return { ms: performance.now() - start, bytes };
}

async function readByFetch(o: Omit<DownloadOrder, 'op'>): Promise<number> {
  const res = await fetch(o.apiUrl + o.path, { headers: { authorization: `Bearer ${o.key}` } });
  if (res.status !== 200 || !res.body) throw new Error(`download ${o.path}: ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
  return bytes;
}

function readByHttp(o: Omit<DownloadOrder, 'op'>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(o.apiUrl + o.path, { headers: { authorization: `Bearer ${o.key}` } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`download ${o.path}: ${res.statusCode}`));
        return;
      }
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.once('end', () => resolve(bytes));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
}

if (process.argv[2] === 'client') {
  for await (const line of createInterface({ input: process.stdin })) {
    const order = JSON.parse(line) as ClientOrders | DownloadOrder;
    const answer = order.op === 'download' ? await download(order) : await roundTrips(order);
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
}
