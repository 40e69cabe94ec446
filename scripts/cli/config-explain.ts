// `agentbox config explain <ID>`: what a rule requires, why, and a bad and a good example.
import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { ruleCatalogue, retiredRules } from '../../management-api/src/manifest/rules/index.js';
import { suggest } from '../../management-api/src/manifest/schema-errors.js';
import { repoPath } from './repo-path.js';
import { UsageError, UserError } from './cli-errors.js';

export const usage = `Usage: agentbox config explain <ID|ALIAS> [--json]

Explain a manifest rule by id (E001, W001) or alias (external-adapter-needs-federation),
printing its documentation page with a bad and a good example.
\`agentbox config explain --list\` lists every rule.

Options:
  --list       list every rule id, severity and summary
  --json       print {id, alias, severity, summary, doc} as JSON
  -h, --help   show this help

Exit codes: 0 explained, 2 unknown id or bad usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, list: { type: 'boolean' } } });
  if (values.list) {
    const rows = ruleCatalogue.map((r) => ({ id: r.id, alias: r.alias, severity: r.severity, summary: r.summary }));
    if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else for (const r of rows) process.stdout.write(`${r.id}  ${r.severity.padEnd(7)}  ${r.alias}: ${r.summary}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('expected exactly one rule id or alias');
  const wanted = String(positionals[0]);
  const rule = ruleCatalogue.find((r) => r.id === wanted.toUpperCase() || r.alias === wanted);
  if (!rule) {
    const retired = retiredRules.find((r) => r.id === wanted.toUpperCase() || r.alias === wanted);
    if (retired) throw new UserError(`${retired.id} (${retired.alias}) is retired: ${retired.retired}`);
    const names = ruleCatalogue.flatMap((r) => [r.id, r.alias]);
    const guess = suggest(wanted, names);
    throw new UserError(`no rule "${wanted}"${guess ? ` — did you mean ${guess}?` : ''} (list them with \`agentbox config explain --list\`)`);
  }
  const doc = await readFile(repoPath(`docs/rules/${rule.id}.md`), 'utf8');
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ id: rule.id, alias: rule.alias, severity: rule.severity, summary: rule.summary, doc }, null, 2)}\n`);
  } else {
    process.stdout.write(doc.endsWith('\n') ? doc : `${doc}\n`);
  }
  return 0;
}
