// Compiles the agent sandbox launcher (C, no dependencies beyond libc and kernel headers) with the
// host compiler into the path schema/box-facts.json names; quick and silent when it is current.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { source, binary } = JSON.parse(readFileSync(path.join(repo, 'schema/box-facts.json'), 'utf8')).image.sandboxLauncher;
const src = path.join(repo, source);
const out = path.join(repo, binary);

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

if (mtime(out) < mtime(src)) {
  const cc = process.env.CC || 'cc';
  mkdirSync(path.dirname(out), { recursive: true });
  // Written beside the target and renamed: a process exec'ing the launcher never sees half a file.
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    execFileSync(cc, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', tmp, src], { stdio: 'inherit' });
  } catch (err) {
    process.stderr.write(`error: compiling ${source} with ${cc} failed (${err.code ?? err.status}): install a C compiler and libc headers (Debian: apt-get install gcc libc6-dev)\n`);
    process.exit(1);
  }
  renameSync(tmp, out);
}
