// What the test image takes from this machine for each entry of the facts file's image.contents:
// the commands it lists (found in /usr/bin or /usr/sbin, node as the running binary), their
// interpreters and shared libraries, Python's standard library (supervisord's and the agents'),
// git's HTTP transport and templates, the CA bundle.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ImageContentFact } from '../../../management-api/src/box-facts.js';
import { canonical, filesUnder, isElf, libraryClosure, shebang, withLinkChain } from './host-files.js';

/** Host files and symlinks to put in the image. */
export interface HostContents {
  /** Image path → host file (symlinks are copied as symlinks). */
  files: Map<string, string>;
  /** Image path → symlink target, for links the image has that the host lays out otherwise. */
  links: Map<string, string>;
}

// Where commands are looked up: the distribution's own directories, never PATH (a newer client
// in /usr/local/bin would shadow the distribution's, and the image must not depend on PATH order).
const COMMAND_DIRS = ['/usr/bin', '/usr/sbin'];
// A command the Nix package provides under another name than Debian's: bash ships `sh` in nixpkgs,
// Debian's /usr/bin/sh is dash.
const SAME_AS: Readonly<Record<string, string>> = { sh: 'bash' };
// supervisord's modules besides the standard library (it imports pkg_resources at start).
const PYTHON_MODULES = ['supervisor', 'pkg_resources'];
// Parts of Python's standard library a box never runs.
const PYTHON_SKIP = new Set(['test', 'tests', 'idlelib', 'tkinter', 'turtledemo', 'ensurepip', 'lib2to3', 'config-3.11-x86_64-linux-gnu']);
// Debian's CA bundle (package ca-certificates).
const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
// Files a package's commands need besides their libraries, by image.contents name: git runs its
// HTTP transport as a separate program and copies its templates into every new repository (the
// other git-core programs are built into /usr/bin/git, which Debian links them to).
const HOST_EXTRAS: Readonly<Record<string, readonly string[]>> = {
  git: ['/usr/lib/git-core/git-remote-http', '/usr/lib/git-core/git-remote-https', '/usr/share/git-core/templates'],
};

/** Raised when this machine lacks something the image needs; the message says what to install. */
export class HostContentError extends Error {
  override name = 'HostContentError';
}

function hostCommand(name: string): string {
  if (name === 'node') return realpathSync(process.execPath);
  for (const dir of COMMAND_DIRS) if (existsSync(path.join(dir, name))) return path.join(dir, name);
  throw new HostContentError(
    `the command ${name} is not in ${COMMAND_DIRS.join(' or ')} on this machine (schema/box-facts.json image.contents needs it): install its Debian package`,
  );
}

/** Python's standard library and the modules supervisord imports, from the interpreter itself. */
function pythonTrees(interpreter: string): string[] {
  // Each module's directory, and its distribution metadata (the console scripts look it up).
  const code = [
    'import sys, os, sysconfig, importlib.metadata as md',
    "print(sysconfig.get_paths()['stdlib'])",
    'for m in sys.argv[1:]:',
    '  print(os.path.dirname(__import__(m).__file__))',
    '  try: print(md.distribution(m)._path)',
    '  except Exception: pass',
  ].join('\n');
  const out = execFileSync(interpreter, ['-c', code, ...PYTHON_MODULES], { encoding: 'utf8' })
    .trim()
    .split('\n');
  return out.flatMap((dir) => filesUnder(dir, PYTHON_SKIP));
}

/**
 * Collect the host files of `contents`. Every command lands at /usr/bin/<name> (the image's /bin
 * is a link to it, as on a merged-/usr Debian), with what it needs at its host path.
 */
export function hostContents(contents: readonly ImageContentFact[], caBundle: string): HostContents {
  const files = new Map<string, string>();
  const links = new Map<string, string>();
  const commands: string[] = [];
  const addHost = (p: string): void => {
    for (const link of withLinkChain(p)) if (!files.has(link)) files.set(link, link);
  };
  for (const c of contents) {
    for (const cmd of c.commands) {
      const other = SAME_AS[cmd];
      if (other && c.commands.includes(other)) {
        links.set(`/usr/bin/${cmd}`, other);
        continue;
      }
      const host = hostCommand(cmd);
      if (canonical(host) === `/usr/bin/${cmd}`) addHost(host);
      else files.set(`/usr/bin/${cmd}`, realpathSync(host));
      commands.push(realpathSync(host));
    }
    for (const extra of HOST_EXTRAS[c.name] ?? []) {
      if (!existsSync(extra)) throw new HostContentError(`${extra} is missing on this machine (${c.name} needs it): install its Debian package`);
      // A directory is data (the templates' sample hooks are never run); a file is a program.
      if (statSync(extra).isDirectory()) for (const f of filesUnder(extra)) addHost(f);
      else addHost(extra);
    }
    if (c.name === 'cacert') {
      if (!existsSync(HOST_CA_BUNDLE)) throw new HostContentError(`${HOST_CA_BUNDLE} is missing: install ca-certificates`);
      files.set(caBundle, realpathSync(HOST_CA_BUNDLE));
    }
  }
  // A command that is a script brings its interpreter (supervisord is Python, with its library).
  // Python listed as a command of its own (the agents' python3) brings its library the same way.
  const interpreters = new Set([
    ...commands.map(shebang).filter((i): i is string => i !== undefined),
    ...commands.filter((c) => /^python3(\.\d+)?$/.test(path.basename(c))),
  ]);
  for (const interp of interpreters) {
    addHost(interp);
    if (/python/.test(path.basename(interp))) for (const p of pythonTrees(interp)) addHost(p);
  }
  // Then the shared libraries of every ELF file (commands, interpreters, Python's extension modules).
  const elves = [...new Set([...files.values()].map((f) => realpathSync(f)))].filter(isElf);
  for (const lib of libraryClosure(elves)) if (!files.has(lib)) files.set(lib, lib);
  return { files, links };
}
