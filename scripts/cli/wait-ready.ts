// Waits for a box that is starting to be ready, for commands that start one: first for its
// bootstrap seal (a file check, no request), then for /ready to answer 200.
//
// Why not poll /ready from the start: a booting box's API would answer a request every few tens
// of milliseconds for nothing, on CPU that the boot (and other boxes starting beside it) needs.
// /ready cannot answer 200 before the seal is written, so the file says when asking is worth it.
import { existsSync } from 'node:fs';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolve true once `sealFile` exists and `readyUrl` answers 200; false when `cancelled()` turns true first. */
export async function waitUntilReady(readyUrl: string, sealFile: string, cancelled: () => boolean, intervalMs = 25): Promise<boolean> {
  while (!cancelled()) {
    if (existsSync(sealFile) && (await statusOf(readyUrl)) === 200) return true;
    await sleep(intervalMs);
  }
  return false;
}

/**
 * The status of a GET of `url`, 0 when it cannot be had within a second. node:http rather than
 * fetch: fetch loads its HTTP client on first use, which cost this command a tenth of its CPU.
 */
export function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 1_000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
