// Workspace files: a 1 MB PUT+GET round trip, and a tar download of a source-like tree beside local `tar -c` of the same tree, in one run.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startBenchBox } from './dashboard-box.js';
import { download, roundTrips, type ClientOrders, type ClientTimes, type DownloadOrder } from './files-bench-client.js';
import { ms, quantile, median, table } from './stats.js';

const ROUND_TRIPS = Number(process.env['AGENTBOX_BENCH_FILES_ROUND_TRIPS'] || 300);
const TAR_RUNS = Number(process.env['AGENTBOX_BENCH_FILES_TAR_RUNS'] || 7);
const FILES = 2_000;
const MB = 1024 * 1024;

/** A tree like a source checkout: 40 directories of 50 files, most of them 4–28 KB of text, 20 of them 1 MB; about 50 MB in all. */
function makeTree(dir: string): number {
  let total = 0;
  const line = 'export function handler(request: Request): Promise<Response> { return route(request, table); }\n';
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `pkg${String(i % 40).padStart(2, '0')}`, i % 3 === 0 ? 'src' : 'lib');
    mkdirSync(sub, { recursive: true });
    const size = i % 100 === 0 ? MB : 4096 + ((i * 7919) % 24_000);
    const body = Buffer.alloc(size);
    for (let off = 0; off < size; off += line.length) body.write(line, off);
    // A few random bytes per file, so no two files are alike.
    randomBytes(16).copy(body, 0);
    writeFileSync(path.join(sub, `file${i}.ts`), body);
    total += size;
  }
  return total;
}

/** Wall time (ms) of a shell command (`stdin`, when given, written to it). */
function timeShell(cmd: string, stdin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('/bin/sh', ['-c', cmd], { stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'ignore'] });
    child.stdin?.end(stdin);
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${cmd}: exit ${code}`))));
  });
}

/** A client in a process of its own (files-bench-client.ts), one order at a time. */
function startClient(): { ask: <T>(order: ClientOrders | DownloadOrder) => Promise<T>; close: () => Promise<void> } {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'files-bench-client.js');
  const child = spawn(process.execPath, [script, 'client'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    async ask<T>(order: ClientOrders | DownloadOrder): Promise<T> {
      child.stdin.write(`${JSON.stringify(order)}\n`);
      const next = await lines.next();
      if (next.done) throw new Error('files bench client: it exited');
      return JSON.parse(next.value) as T;
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

/** Run both measures; the figures that matter: round-trip p50, and the download's throughput as a share of local tar's. */
export async function runFilesBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const uiRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui');
  const work = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-files-bench-'));
  const box = await startBenchBox(uiRoot);
  try {
    const spawned = await box.api('POST', '/v1/agents', { name: 'files-bench', command: '/bin/sh', args: ['-c', 'exec sleep 600'] });
    if (spawned.status !== 201) throw new Error(`files bench: spawn: ${JSON.stringify(spawned.json)}`);
    const id = (spawned.json['agent'] as { id: string }).id;
    const auth = { authorization: `Bearer ${box.key}` };

    // 1 MB round trip: PUT then GET of the same file, timed together and apart; by a client in a process of its own, as a
    // user's is, and by one in this process, which shares the server's thread.
    const client = startClient();
    const orders: ClientOrders = {
      op: 'round-trips',
      apiUrl: box.apiUrl,
      key: box.key,
      path: `/v1/agents/${id}/files/rt.bin`,
      rounds: ROUND_TRIPS,
      warmup: 30,
      bytes: MB,
    };
    const apart = await client.ask<ClientTimes>(orders);
    const { both } = await roundTrips(orders);

    // The tree: made locally, uploaded as one tar, then downloaded against local tar of the local copy.
    const tree = path.join(work, 'tree');
    const treeBytes = makeTree(tree);
    const tarBody = execFileSync('tar', ['-c', '-C', tree, '.'], { maxBuffer: 256 * MB });
    const up = await fetch(`${box.apiUrl}/v1/agents/${id}/files/tree`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-tar' },
      body: tarBody,
    });
    if (up.status !== 200) throw new Error(`files bench: upload: ${up.status} ${await up.text()}`);
    const tarOrder: DownloadOrder = { op: 'download', apiUrl: box.apiUrl, key: box.key, path: `/v1/agents/${id}/files/tree?format=tar` };
    const httpOrder: DownloadOrder = { ...tarOrder, via: 'http' };
    // curl reads the key from a header file given on stdin, never from its arguments.
    const curl = `curl -sf -o /dev/null -H @- '${box.apiUrl}${tarOrder.path}'`;
    const curlDl = () => timeShell(curl, `authorization: Bearer ${box.key}\n`);
    const apartDl: number[] = [];
    const fetchDl: number[] = [];
    const curlDls: number[] = [];
    const inProcessDl: number[] = [];
    const localNull: number[] = [];
    const localPipe: number[] = [];
    let tarBytes = 0;
    await client.ask(tarOrder);
    await client.ask(httpOrder);
    await download(tarOrder);
    await curlDl();
    await timeShell(`tar -c -C '${tree}' . | cat > /dev/null`);
    for (let i = 0; i < TAR_RUNS; i++) {
      apartDl.push((await client.ask<{ ms: number }>(httpOrder)).ms);
      fetchDl.push((await client.ask<{ ms: number }>(tarOrder)).ms);
      curlDls.push(await curlDl());
      const d = await download(tarOrder);
      inProcessDl.push(d.ms);
      tarBytes = d.bytes;
      localNull.push(await timeShell(`tar -c -C '${tree}' . > /dev/null`));
      localPipe.push(await timeShell(`tar -c -C '${tree}' . | cat > /dev/null`));
    }
    const rate = (t: number) => tarBytes / MB / (t / 1000);
    const [dl, ln, lp] = [median(inProcessDl), median(localNull), median(localPipe)];
    await client.close();
    const [dc, df, du] = [median(apartDl), median(fetchDl), median(curlDls)];
    const figures = {
      roundTrip: {
        p50Ms: quantile(apart.both, 0.5),
        p99Ms: quantile(apart.both, 0.99),
        putP50Ms: quantile(apart.put, 0.5),
        getP50Ms: quantile(apart.get, 0.5),
        samples: apart.both.length,
        inProcessP50Ms: quantile(both, 0.5),
      },
      tar: {
        files: FILES,
        treeBytes,
        tarBytes,
        apartMs: dc,
        fetchMs: df,
        curlMs: du,
        downloadMs: dl,
        localDevNullMs: ln,
        localPipeMs: lp,
        downloadMBps: rate(dl),
        localDevNullMBps: rate(ln),
        localPipeMBps: rate(lp),
        ratioVsDevNull: ln / dc,
        ratioVsPipe: lp / dc,
        fetchRatioVsPipe: lp / df,
        curlRatioVsPipe: lp / du,
      },
    };
    const text = [
      `Workspace files (loopback HTTP, one box in this process; ${ROUND_TRIPS} round trips, ${TAR_RUNS} tar runs interleaved, medians)`,
      '',
      table(
        ['1 MB file', 'p50', 'p99'],
        [
          ['PUT + GET, client in its own process', ms(quantile(apart.both, 0.5)), ms(quantile(apart.both, 0.99))],
          ['PUT', ms(quantile(apart.put, 0.5)), ms(quantile(apart.put, 0.99))],
          ['GET', ms(quantile(apart.get, 0.5)), ms(quantile(apart.get, 0.99))],
          ["PUT + GET, client on the server's thread", ms(quantile(both, 0.5)), ms(quantile(both, 0.99))],
        ],
      ),
      '',
      `tree: ${FILES} files, ${(treeBytes / MB).toFixed(1)} MB of data, tar ${(tarBytes / MB).toFixed(1)} MB`,
      table(
        ['tar of the tree', 'time', 'MB/s', 'download ÷ this'],
        [
          ['GET ?format=tar, node:http client in its own process', ms(dc), rate(dc).toFixed(0), '1.00'],
          ['GET ?format=tar, fetch client in its own process', ms(df), rate(df).toFixed(0), (dc / df).toFixed(2)],
          ['GET ?format=tar, curl -o /dev/null (a process each)', ms(du), rate(du).toFixed(0), (dc / du).toFixed(2)],
          ["GET ?format=tar, fetch client on the server's thread", ms(dl), rate(dl).toFixed(0), (dc / dl).toFixed(2)],
          ['tar -c -C DIR . > /dev/null', ms(ln), rate(ln).toFixed(0), (ln / dc).toFixed(2)],
          ['tar -c -C DIR . | cat > /dev/null', ms(lp), rate(lp).toFixed(0), (lp / dc).toFixed(2)],
        ],
      ),
      '',
      'GNU tar writing to /dev/null itself does not read file contents (it recognises the device), so the piped line is the like-for-like baseline.',
      "The round trips are timed by a fetch client in its own process, as a user's is (agentbox cp); a client in the bench's process takes the server's thread while it reads.",
      "The download set against the target is the node:http client's, a plain socket reader as cat is to local tar; fetch's web stream and curl's 16 KiB reads (and its start, like the shell's in the baselines) cost the client more, and are shown beside it.",
    ].join('\n');
    return { text, json: figures };
  } finally {
    await box.close();
    rmSync(work, { recursive: true, force: true });
  }
}
