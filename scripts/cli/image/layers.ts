// The test image's layers as tar entries, laid out as lib/image.nix lays out the Nix image (paths,
// users, mount points, application, configs), all read from schema/box-facts.json: `system`
// (commands, libraries, /etc), `app` (the application under image.appDir), `config` (the
// rendered configs of one manifest).
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { boxFacts } from '../../../management-api/src/box-facts.js';
import type { TarEntry } from './tar-writer.js';
import type { HostContents } from './host-contents.js';

const img = boxFacts.image;
const dirs = boxFacts.runtime.dirs;
const rel = (p: string): string => p.replace(/^\/+/, '');
const root = { uid: 0, gid: 0 };
const owned = { uid: img.uid, gid: img.gid };

/** A host file or symlink as an entry at `imagePath`, owned by root. */
function fromHost(imagePath: string, source: string): TarEntry {
  const st = lstatSync(source);
  if (st.isSymbolicLink()) return { type: 'symlink', path: rel(imagePath), target: readlinkSync(source), ...root };
  return { type: 'file', path: rel(imagePath), mode: st.mode & 0o7777, size: st.size, source, ...root };
}

const text = (p: string, content: string, mode = 0o644): TarEntry => {
  const buf = Buffer.from(content);
  return { type: 'file', path: rel(p), mode, size: buf.length, content: buf, ...root };
};

/** Add the parent directories every entry needs (root-owned 0755) unless listed, sorted parents first. */
export function withParents(entries: TarEntry[]): TarEntry[] {
  const byPath = new Map(entries.map((e) => [e.path, e]));
  for (const e of entries) {
    for (let d = path.posix.dirname(e.path); d !== '.' && !byPath.has(d); d = path.posix.dirname(d))
      byPath.set(d, { type: 'dir', path: d, mode: 0o755, ...root });
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The system layer: merged-/usr links, the host contents, /etc files and the mount points. */
export function systemLayer(host: HostContents): TarEntry[] {
  const entries: TarEntry[] = ['bin', 'lib', 'lib64', 'sbin'].map((d) => ({ type: 'symlink', path: d, target: `usr/${d}`, ...root }));
  for (const [imagePath, source] of host.files) entries.push(fromHost(imagePath, source));
  for (const [imagePath, target] of host.links) entries.push({ type: 'symlink', path: rel(imagePath), target, ...root });
  entries.push(
    text(
      '/etc/passwd',
      `root:x:0:0:root:/root:/bin/false\n${img.user}:x:${img.uid}:${img.gid}:Agentbox:${img.homeDir}:${img.shell}\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n`,
    ),
    text('/etc/group', `root:x:0:\n${img.group}:x:${img.gid}:\nnogroup:x:65534:\n`),
    text('/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n'),
  );
  // Mount points of the read-only root: the baseline tmpfs paths, and the state volume and
  // workspace, which the box's user owns because it writes there (lib/image.nix fakeRootCommands).
  for (const p of Object.keys(boxFacts.baseline.tmpfs)) entries.push({ type: 'dir', path: rel(p), mode: p === dirs.tmpDir ? 0o1777 : 0o755, ...root });
  for (const p of [dirs.stateDir, dirs.workspaceDir]) entries.push({ type: 'dir', path: rel(p), mode: 0o755, ...owned });
  return withParents(entries);
}

/** Every file under `dir` (host), as entries under `imageDir`; `skip(relPath)` leaves a subtree out. */
function tree(dir: string, imageDir: string, skip: (relPath: string) => boolean = () => false, sub = ''): TarEntry[] {
  const out: TarEntry[] = [];
  const st = lstatSync(path.join(dir, sub));
  if (!st.isDirectory()) return [fromHost(path.posix.join(imageDir, sub), path.join(dir, sub))];
  out.push({ type: 'dir', path: rel(path.posix.join(imageDir, sub)), mode: 0o755, ...root });
  for (const name of readdirSync(path.join(dir, sub))) {
    const child = sub ? `${sub}/${name}` : name;
    if (!skip(child)) out.push(...tree(dir, imageDir, skip, child));
  }
  return out;
}

/**
 * Production node_modules: the package-lock entries that are not dev-only, each without its
 * nested node_modules (those are entries of their own), like `npm prune --omit=dev`.
 */
export function productionModules(repo: string): string[] {
  const lock = JSON.parse(readFileSync(path.join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean; link?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([p, info]) => p !== '' && !info.dev && !info.link)
    .filter(([p, info]) => {
      try {
        return lstatSync(path.join(repo, p)).isDirectory();
      } catch {
        if (info.optional) return false; // an optional package for another platform
        throw new Error(`${p} is in package-lock.json but not installed: run npm ci`);
      }
    })
    .map(([p]) => p);
}

/** The application layer: image.app entries and config/ under image.appDir, bin -> config/bin. */
export function appLayer(repo: string): TarEntry[] {
  const entries: TarEntry[] = [];
  const modules = new Set(productionModules(repo));
  for (const name of img.app) {
    if (name !== 'node_modules') entries.push(...tree(path.join(repo, name), path.posix.join(img.appDir, name)));
  }
  for (const m of modules) {
    entries.push(...tree(path.join(repo, m), path.posix.join(img.appDir, m), (r) => r === 'node_modules'));
  }
  entries.push(...tree(path.join(repo, 'config'), path.posix.join(img.appDir, 'config')));
  entries.push({
    type: 'symlink',
    path: rel(img.binDir),
    target: path.posix.relative(path.posix.dirname(img.binDir), path.posix.join(img.appDir, 'config/bin')),
    ...root,
  });
  return withParents(entries);
}

/** The config layer: the manifest and the files rendered from it, where the runtime reads them. */
export function configLayer(files: { manifest: string; supervisordConf: string; artifacts: string }): TarEntry[] {
  const f = boxFacts.runtime.files;
  return withParents([text(f.manifestFile, files.manifest), text(f.supervisordConf, files.supervisordConf), text(f.artifactsFile, files.artifacts)]);
}
