// Regenerates every file derived from the schema (TypeScript types, the precompiled validator,
// the manifest reference) and from the routes (the TypeScript and Python clients' types) — or, with --check, fails when a checked-in copy is stale.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateManifestTypes } from './generate/manifest-types.js';
import { generateValidator } from './generate/validator.js';
import { generateManifestReference } from './generate/manifest-reference.js';
import { generateClientTypes } from './generate/client-types.js';
import { generatePythonRoutes } from './generate/python-client.js';
import { starterManifest } from '../cli/starter-manifest.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const targets: Array<{ file: string; make: (schema: object) => Promise<string> | string }> = [
  { file: 'management-api/src/manifest/generated/manifest-types.ts', make: generateManifestTypes },
  { file: 'management-api/src/manifest/generated/manifest-validator.ts', make: generateValidator },
  { file: 'docs/user/manifest.md', make: generateManifestReference },
  // The reference manifest is the standalone starter, so `init` and the reference never drift.
  { file: 'agentbox.toml', make: () => starterManifest({ mode: 'standalone', schemaRef: './schema/agentbox.schema.json' }) },
  // The client's route types, from the OpenAPI document of the app the routes build: a route added
  // or changed without regenerating makes --check fail.
  { file: 'management-api/src/client/generated/api-types.ts', make: generateClientTypes },
  // The Python client's route table and types, from the same document and error table.
  { file: 'clients/python/agentbox_client/_routes.py', make: generatePythonRoutes },
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(
      "Usage: node dist/scripts/build/generate.js [--check]\n\nRegenerate the files derived from schema/agentbox.schema.json and from the routes (the TypeScript and Python clients' types).\n  --check  write nothing; exit 1 if a checked-in file differs from what would be generated\n",
    );
    return;
  }
  const check = args.includes('--check');
  const schema = JSON.parse(await readFile(path.join(repo, 'schema/agentbox.schema.json'), 'utf8')) as object;
  let stale = 0;
  for (const t of targets) {
    const want = await t.make(structuredClone(schema));
    const file = path.join(repo, t.file);
    const have = await readFile(file, 'utf8').catch(() => '');
    if (have === want) continue;
    if (check) {
      stale++;
      process.stderr.write(`stale: ${t.file} differs from what the schema generates; run \`npm run generate\`\n`);
    } else {
      await writeFile(file, want);
      process.stdout.write(`wrote ${t.file}\n`);
    }
  }
  if (stale) process.exitCode = 1;
}

await main();
