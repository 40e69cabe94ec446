// Files of this machine for the test image: a host path made canonical (merged /usr), symlink
// chains kept, and the shared-library closure of ELF files found with ldd.
import { execFileSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** A host file to copy into the image at the same path (a regular file or a symlink). */
export interface HostFile {
  /** Absolute path in the image (= on the host, with its directory made canonical). */
  path: string;
  /** The host file to read (equal to `path` except for renamed files). */
  source: string;
}

/** `p` with its directory resolved (merged /usr: /lib/x → /usr/lib/x) but the file itself kept. */
export function canonical(p: string): string {
  return path.join(realpathSync(path.dirname(p)), path.basename(p));
}

/** True when the file starts with the ELF magic. */
export function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b.toString('latin1') === '\x7fELF';
  } finally {
    closeSync(fd);
  }
}

/** `p` and, when it is a symlink, every link of its chain down to the regular file. */
export function withLinkChain(p: string): string[] {
  const out: string[] = [];
  let cur = canonical(p);
  for (let i = 0; i < 40; i++) {
    out.push(cur);
    const st = lstatSync(cur);
    if (!st.isSymbolicLink()) return out;
    cur = canonical(path.resolve(path.dirname(cur), readlinkSync(cur)));
  }
  throw new Error(`${p}: too many levels of symbolic links`);
}

/** Shared libraries (and the loader) the ELF files need, as ldd resolves them on this machine. */
export function libraryClosure(elfFiles: readonly string[]): string[] {
  const libs = new Set<string>();
  // ldd takes many files per call; a batch keeps the argument list short.
  for (let i = 0; i < elfFiles.length; i += 200) {
    let out: string;
    try {
      out = execFileSync('ldd', elfFiles.slice(i, i + 200), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      // ldd exits 1 when one of the files is static ("not a dynamic executable"): its output still lists the rest.
      out = String((err as { stdout?: string }).stdout ?? '');
    }
    for (const line of out.split('\n')) {
      if (/not found/.test(line)) throw new Error(`a shared library is missing on this machine: ${line.trim()}`);
      const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s+(\/\S+)\s+\(0x/.exec(line);
      if (m) libs.add(m[1]!);
    }
  }
  return [...libs].flatMap(withLinkChain);
}

/** Every regular file and symlink under `dir`, skipping directories whose name is in `skip`. */
export function filesUnder(dir: string, skip: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) {
      if (!skip.has(d.name)) out.push(...filesUnder(p, skip));
    } else if (d.isFile() || d.isSymbolicLink()) {
      out.push(p);
    }
  }
  return out;
}

/** The interpreter a script names on its `#!` line, or undefined for a binary. */
export function shebang(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(256);
    const n = readSync(fd, b, 0, 256, 0);
    const first = b.subarray(0, n).toString('latin1').split('\n')[0] ?? '';
    return first.startsWith('#!') ? first.slice(2).trim().split(/\s+/)[0] : undefined;
  } finally {
    closeSync(fd);
  }
}
