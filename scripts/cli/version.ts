// The package version, read from package.json at the repository root.
import { readFileSync } from 'node:fs';
import { repoPath } from './repo-path.js';

/** `agentbox <version>`. */
export function agentboxVersion(): string {
  const pkg = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string };
  return `agentbox ${pkg.version}`;
}
