// Compiles the agent sandbox launcher (C, no dependencies beyond libc and kernel headers) with the
// host compiler into the path schema/box-facts.json names; quick and silent when it is current.
// `--if-compiler` (used by `npm run build`): on a host without a C compiler or libc headers, say how
// to get them and succeed, so the TypeScript build still completes; a compile error still fails.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { source, binary } = JSON.parse(readFileSync(path.join(repo, 'schema/box-facts.json'), 'utf8')).image.sandboxLauncher;
// `source` is the main file; every C file beside it is part of the launcher (headers too, for the date).
const dir = path.dirname(path.join(repo, source));
const files = readdirSync(dir)
  .filter((f) => /\.[ch]$/.test(f))
  .sort()
  .map((f) => path.join(dir, f));
const out = path.join(repo, binary);

const mtime = (p) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

const optional = process.argv.includes('--if-compiler');
const cc = process.env.CC || 'cc';

/** The compiler on PATH (or the absolute CC) and the headers the launcher includes, or what is missing. */
function missingToolchain() {
  const onPath = cc.includes('/')
    ? [cc]
    : (process.env.PATH ?? '')
        .split(':')
        .filter(Boolean)
        .map((d) => path.join(d, cc));
  if (!onPath.some((p) => mtime(p) >= 0)) return `no C compiler (${cc}) on PATH`;
  for (const header of ['/usr/include/stdio.h', '/usr/include/linux/seccomp.h']) if (mtime(header) < 0) return `${header} is missing`;
  return undefined;
}

const stale = files.some((f) => mtime(out) < mtime(f));
const missing = stale && optional ? missingToolchain() : undefined;
if (missing) {
  process.stderr.write(
    `note: the agent sandbox launcher (${binary}) was not built: ${missing}. Agents cannot start until it is: ` +
      'install a C compiler and libc headers (Debian: sudo apt-get install gcc libc6-dev), then run npm run build again ' +
      '(npm start and npm test install them by themselves).\n',
  );
} else if (stale) {
  mkdirSync(path.dirname(out), { recursive: true });
  // Written beside the target and renamed: a process exec'ing the launcher never sees half a file.
  const tmp = `${out}.${process.pid}.tmp`;
  const compile = (extra) =>
    execFileSync(cc, ['-O2', ...extra, '-Wall', '-Wextra', '-Werror', '-o', tmp, ...files.filter((f) => f.endsWith('.c'))], { stdio: 'pipe' });
  try {
    try {
      // Linked statically: every agent's spawn execs the launcher, and without the dynamic loader's
      // work (ld.so.cache, libc's relocations) that exec is about 0.16 ms shorter (npm run bench -- --only sandbox).
      compile(['-static']);
    } catch {
      // A libc without its static archive (Fedora's glibc-static, not installed by default): the
      // launcher works the same linked dynamically.
      compile([]);
    }
  } catch (err) {
    process.stderr.write(String(err.stderr ?? ''));
    process.stderr.write(
      `error: compiling ${source} with ${cc} failed (${err.code ?? err.status}): install a C compiler and libc headers (Debian: apt-get install gcc libc6-dev)\n`,
    );
    process.exit(1);
  }
  renameSync(tmp, out);
}
