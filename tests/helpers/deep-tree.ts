// Trees for the snapshot tests: a chain of directories whose paths run past PATH_MAX (made by chdir: no absolute path reaches
// its bottom), and a tree's bytes as GNU tar packs it, to compare two trees whole.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';

/** Level i's name: 250 bytes, numbered so that the names sort in level order. */
export const levelName = (i: number): string => `${String(i).padStart(3, '0')}${'x'.repeat(247)}`;

/**
 * `levels` nested directories below `root`, named by levelName: `inLevel(i)` runs inside level i
 * (the working directory), `atBottom` inside the last. Below the last, a directory `sealed` holds
 * one file and then gets an old mtime and `sealedMode` (read-only: a build must fill it before it
 * seals it). The working directory is restored whatever happens.
 */
export function makeDeepChain(root: string, levels: number, make: { inLevel: (i: number) => void; atBottom?: () => void; sealedMode: number }): void {
  const back = process.cwd();
  process.chdir(root);
  try {
    for (let i = 0; i < levels; i++) {
      mkdirSync(levelName(i));
      process.chdir(levelName(i));
      make.inLevel(i);
    }
    make.atBottom?.();
    mkdirSync('sealed');
    writeFileSync('sealed/inside.txt', 'sealed in\n');
    utimesSync('sealed', 1_400_000_000, 1_400_000_000);
    chmodSync('sealed', make.sealedMode);
  } finally {
    process.chdir(back);
  }
}

/** The tree as GNU tar packs it (it walks by descriptors): names sorted, owners and access times left out. Equal bytes, equal trees. */
export const tarOf = (dir: string): Buffer =>
  execFileSync('tar', ['-C', dir, '--sort=name', '--numeric-owner', '--owner=0', '--group=0', '--format=gnu', '-cf', '-', '.'], { maxBuffer: 1 << 28 });
