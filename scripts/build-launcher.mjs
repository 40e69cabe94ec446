// Compiles the agent sandbox launcher (C, no dependencies beyond libc and kernel headers) with the
// host compiler into the path schema/box-facts.json names; quick and silent when it is current.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { source, binary } = JSON.parse(readFileSync(path.join(repo, 'schema/box-facts.json'), 'utf8')).image.sandboxLauncher;
// `source` is the main file; every C file beside it is part of the launcher (headers too, for the date).
const dir = path.dirname(path.join(repo, source));
const files = readdirSync(dir).filter((f) => /\.[ch]$/.test(f)).sort().map((f) => path.join(dir, f));
const out = path.join(repo, binary);

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

if (files.some((f) => mtime(out) < mtime(f))) {
  const cc = process.env.CC || 'cc';
  mkdirSync(path.dirname(out), { recursive: true });
  // Written beside the target and renamed: a process exec'ing the launcher never sees half a file.
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    execFileSync(cc, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', tmp, ...files.filter((f) => f.endsWith('.c'))], { stdio: 'inherit' });
  } catch (err) {
    process.stderr.write(`error: compiling ${source} with ${cc} failed (${err.code ?? err.status}): install a C compiler and libc headers (Debian: apt-get install gcc libc6-dev)\n`);
    process.exit(1);
  }
  renameSync(tmp, out);
}
