// Flake tests' fixtures: a copy of the flake with another agentbox.toml, and the stub nixpkgs'
// application (this checkout's compiled CLI), each removed when the calling test ends.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './helpers.js';

/** A copy of the flake's tracked files (as a plain directory flake), with `agentbox.toml` replaced and `extra` files (path → text) added. */
export function flakeCopy(manifest: string, extra: Readonly<Record<string, string>> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-flake-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = spawnSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
  for (const f of files) {
    const from = path.join(repoRoot, f);
    try {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      copyFileSync(from, path.join(dir, f));
    } catch {
      // A tracked file deleted in the working tree: the copy mirrors the working tree.
    }
  }
  writeFileSync(path.join(dir, 'agentbox.toml'), manifest);
  for (const [file, text] of Object.entries(extra)) writeFileSync(path.join(dir, file), text);
  return `path:${dir}`;
}

/** A directory with bin/agentbox running this checkout's compiled CLI: the stub's application. */
export function stubApp(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-stub-app-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755); // builds run as a build user
  mkdirSync(path.join(dir, 'bin'), { mode: 0o755 });
  writeFileSync(path.join(dir, 'bin/agentbox'), `#!/bin/sh\nexec ${process.execPath} ${path.join(repoRoot, 'dist/scripts/cli/agentbox.js')} "$@"\n`);
  chmodSync(path.join(dir, 'bin/agentbox'), 0o755);
  return dir;
}
