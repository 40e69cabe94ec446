// A box's state as a backup reads it, made without running a box: one pod page, and an identity key (as the box writes
// it: hex, 0600) when one is given. The backup tests' common starting point.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bytesToHex } from 'nostr-tools/utils';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

/** Make the root `root` (answered back) with `pods/docs/page.txt` holding `page`, and `identity` as its identity key. */
export function backupBoxRoot(root: string, options: { page?: string; identity?: Uint8Array } = {}): string {
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  mkdirSync(path.join(paths.stateDir, 'pods/docs'), { recursive: true });
  writeFileSync(path.join(paths.stateDir, 'pods/docs/page.txt'), options.page ?? 'a page\n');
  if (options.identity) {
    mkdirSync(paths.secretsDir, { recursive: true, mode: 0o700 });
    writeFileSync(paths.identityKeyFile, `${bytesToHex(options.identity)}\n`, { mode: 0o600 });
  }
  return root;
}
