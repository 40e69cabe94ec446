// A process that snapshots a directory into a store, to be killed with SIGKILL mid-capture. Usage: node snapshot-kill-child.ts <store-dir> <tree>
import { open } from 'node:fs/promises';
import pino from 'pino';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';

const [storeDir, tree] = process.argv.slice(2) as [string, string];
const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }) });
await store.open();
await store.sweep();
const root = await open(tree, DIR_FLAGS);
process.stdout.write('capturing\n');
const made = await store.create({ rootFd: root.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_child', name: 'child', cwd: 'child' } });
process.stdout.write(`done ${made.id}\n`);
