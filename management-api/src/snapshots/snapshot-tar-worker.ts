// The snapshot store's tar worker: packs directories of snapshots from the store (snapshot-tar-walk.ts), served as the workspace downloads' tar worker serves its packs.
import { servePacks } from '../workspace-files/tar-pack-serve.js';
import { packSnapshot, type PackSnapshotRequest } from './snapshot-tar-walk.js';

servePacks<PackSnapshotRequest>({ 'pack-snapshot': packSnapshot });
