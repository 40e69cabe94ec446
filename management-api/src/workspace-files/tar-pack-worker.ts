// The tar worker of workspace downloads: packs directories for packTar (tar-pack.ts) with synchronous file calls, several packs at once, each paced by its reader.
import { HoleAllowance } from './hole-allowance.js';
import { packDirectory } from './tar-pack-walk.js';
import type { PackRequest } from './tar-pack-protocol.js';
import { servePacks } from './tar-pack-serve.js';

servePacks<PackRequest>({
  pack: (out, request, report, pace) =>
    packDirectory(out, request.dirFd, { ownUid: request.ownUid, holes: new HoleAllowance(request.maxHoleBytes, 'a tar download') }, report, pace),
});
