// `agentbox init [--mode standalone|client|host]`: write a commented starter manifest that validates.
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { starterManifest, type StarterMode } from './starter-manifest.js';
import { repoPath } from './repo-path.js';
import { UsageError, UserError } from './cli-errors.js';

export const usage = `Usage: agentbox init [--mode standalone|client|host] [--file PATH] [--host-url URL] [--force]

Write a commented starter manifest. Its first line, #:schema, points TOML editors (Taplo,
Even Better TOML) at the schema so they complete and check keys while you type.

Options:
  --mode MODE      standalone (default), client (joins a mesh host) or host (runs the mesh)
  --file PATH      where to write (default ./agentbox.toml)
  --host-url URL   the mesh host's API, for --mode client (default http://127.0.0.1:9090)
  --force          overwrite an existing file
  -h, --help       show this help

Exit codes: 0 written, 2 bad usage or the file exists (without --force).`;

const modes: readonly StarterMode[] = ['standalone', 'client', 'host'];

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { mode: { type: 'string' }, file: { type: 'string' }, 'host-url': { type: 'string' }, force: { type: 'boolean' } },
  });
  if (positionals.length) throw new UsageError(`unexpected argument "${String(positionals[0])}"`);
  const mode = (values.mode ?? 'standalone') as StarterMode;
  if (!modes.includes(mode)) throw new UsageError(`--mode must be one of ${modes.join(', ')}, not "${values.mode}"`);
  if (values['host-url'] !== undefined && mode !== 'client') throw new UsageError('--host-url only applies to --mode client');
  if (values['host-url'] !== undefined && !/^https?:\/\/[^/\s@]+/.test(values['host-url'])) {
    throw new UsageError(`--host-url must be an http(s) URL without credentials, not "${values['host-url']}"`);
  }
  const file = path.resolve(values.file ?? 'agentbox.toml');
  const schemaRef = path.relative(path.dirname(file), repoPath('schema/agentbox.schema.json'));
  const text = starterManifest({ mode, schemaRef, ...(values['host-url'] ? { hostUrl: values['host-url'] } : {}) });
  try {
    await writeFile(file, text, { flag: values.force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError(`${file} already exists; pass --force to overwrite it`);
    throw new UserError(`cannot write ${file}: ${(err as Error).message}`);
  }
  process.stdout.write(`wrote ${file} (${mode}); check it with: npx agentbox config validate ${path.relative(process.cwd(), file) || file}\n`);
  return 0;
}
