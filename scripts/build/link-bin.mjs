// Links node_modules/.bin/agentbox to the compiled CLI, as npm does for a dependency's bin
// (npm links the bins of dependencies, not of the project itself).
import { mkdirSync, symlinkSync, rmSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const target = path.join(repo, 'dist/bin/agentbox.js');
const link = path.join(repo, 'node_modules/.bin/agentbox');
mkdirSync(path.dirname(link), { recursive: true });
rmSync(link, { force: true });
symlinkSync(path.relative(path.dirname(link), target), link);
chmodSync(target, 0o755);
