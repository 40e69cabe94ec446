// Drift: the runtime-contract cases listed in docs/user/runtime.md are exactly the RC-* tests of
// tests/runtime-contract/, each in the file the table names, and no doc names a case that does not exist.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';

const suiteDir = path.join(repoRoot, 'tests/runtime-contract');
const RC = /RC-\d{2}/g;

/** Every `t.test('RC-NN: …')` of the suite, by id, with the file that declares it. */
function suiteCases(): Map<string, string[]> {
  const cases = new Map<string, string[]>();
  for (const file of readdirSync(suiteDir).filter((f) => f.endsWith('.test.ts'))) {
    for (const m of readFileSync(path.join(suiteDir, file), 'utf8').matchAll(/t\.test\('(RC-\d{2}):/g)) cases.set(m[1]!, [...(cases.get(m[1]!) ?? []), file]);
  }
  return cases;
}

/** The rows of the table in runtime.md: `| RC-NN | what | \`file\` |`. */
function documentedCases(): Map<string, string> {
  const doc = readFileSync(path.join(repoRoot, 'docs/user/runtime.md'), 'utf8');
  return new Map([...doc.matchAll(/^\| (RC-\d{2}) \| .+ \| `([^`]+)` \|$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Markdown files under docs/ and the README. */
function docFiles(dir = path.join(repoRoot, 'docs')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? docFiles(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : [],
  );
}

t.test('runtime.md lists every RC case of the suite, in order, each in its file', async (t) => {
  const suite = suiteCases();
  const documented = documentedCases();
  t.ok(suite.size >= 11, `the suite has its cases (${[...suite.keys()].join(', ')})`);
  t.same([...documented.keys()], [...suite.keys()].sort(), 'the table and the suite name the same cases, in id order');
  for (const [id, files] of suite) {
    t.equal(files.length, 1, `${id} is declared once`);
    t.equal(documented.get(id), files[0], `${id} is in the file the table names`);
  }
});

t.test('no document names an RC case the suite does not have', async (t) => {
  const suite = suiteCases();
  for (const file of [...docFiles(), path.join(repoRoot, 'README.md')]) {
    const unknown = [...new Set(readFileSync(file, 'utf8').match(RC) ?? [])].filter((id) => !suite.has(id));
    t.same(unknown, [], path.relative(repoRoot, file));
  }
});
