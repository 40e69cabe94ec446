// The test image's `agents` layer: the npm agent CLIs of [agents] npm under image.agentNpmDir, each
// listed package's commands linked into /usr/bin (on agents' PATH, inside the sandbox's read-only
// /usr grant), and the host libraries their native binaries need that the system layer lacks.
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { boxFacts } from '../../../management-api/src/box-facts.js';
import type { AgentNpmInstall } from './agent-npm.js';
import { isElf, libraryClosure } from './host-files.js';
import { withParents } from './layers.js';
import type { TarEntry } from './tar-writer.js';

const root = { uid: 0, gid: 0 };
const rel = (p: string): string => p.replace(/^\/+/, '');

/**
 * Every file under `dir` as entries under `imageDir`. A file hard-linked to one already taken (Claude
 * Code's installer links its 400 MB platform binary into its own bin/) becomes a symlink to that
 * one, since a layer copy would carry its bytes twice. Returns the entries and the regular files.
 */
function tree(dir: string, imageDir: string): { entries: TarEntry[]; files: string[] } {
  const entries: TarEntry[] = [];
  const files: string[] = [];
  const seen = new Map<string, string>(); // dev:ino → image path
  const walk = (host: string, image: string): void => {
    const st = lstatSync(host);
    if (st.isSymbolicLink()) entries.push({ type: 'symlink', path: rel(image), target: readlinkSync(host), ...root });
    else if (st.isDirectory()) {
      entries.push({ type: 'dir', path: rel(image), mode: 0o755, ...root });
      for (const name of readdirSync(host).sort()) walk(path.join(host, name), path.posix.join(image, name));
    } else if (st.isFile()) {
      const id = `${st.dev}:${st.ino}`;
      const first = st.nlink > 1 ? seen.get(id) : undefined;
      if (first) entries.push({ type: 'symlink', path: rel(image), target: path.posix.relative(path.posix.dirname(image), first), ...root });
      else {
        seen.set(id, image);
        // Readable and, where the package made it so, executable by everyone: agents run as other uids.
        entries.push({ type: 'file', path: rel(image), mode: st.mode & 0o111 ? 0o755 : 0o644, size: st.size, source: host, ...root });
        files.push(host);
      }
    }
  };
  walk(dir, imageDir);
  return { entries, files };
}

/**
 * The layer's entries. `hostFiles` are the image paths the system layer has already (libraries
 * found there are not repeated).
 */
export function agentsLayer(install: AgentNpmInstall, hostFiles: ReadonlySet<string>): TarEntry[] {
  const base = boxFacts.image.agentNpmDir;
  const { entries, files } = tree(path.join(install.prefix, 'node_modules'), path.posix.join(base, 'node_modules'));
  for (const [cmd, file] of Object.entries(install.bins))
    entries.push({ type: 'symlink', path: `usr/bin/${cmd}`, target: path.posix.relative('/usr/bin', path.posix.join(base, 'node_modules', file)), ...root });
  // Libraries a native binary loads from beside itself ($ORIGIN) are in the tree already.
  const prefix = `${install.prefix}${path.sep}`;
  for (const lib of libraryClosure(files.filter(isElf))) {
    if (lib.startsWith(prefix) || hostFiles.has(lib)) continue;
    const st = lstatSync(lib);
    entries.push(
      st.isSymbolicLink()
        ? { type: 'symlink', path: rel(lib), target: readlinkSync(lib), ...root }
        : { type: 'file', path: rel(lib), mode: st.mode & 0o7777, size: st.size, source: lib, ...root },
    );
  }
  return withParents(entries);
}
