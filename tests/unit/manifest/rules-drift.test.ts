// Drift: the rule catalogue, its source files, its doc pages and its fixtures describe the same ids.
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ruleCatalogue, retiredRules } from '../../../management-api/src/manifest/rules/index.js';
import type { Rule, RuleContext } from '../../../management-api/src/manifest/rules/rule.js';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { boxFacts, type BoxFactsShape } from '../../../management-api/src/box-facts.js';

const repo = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const rulesDir = repo('management-api/src/manifest/rules');
const docsDir = repo('docs/rules');
const fixturesDir = repo('tests/fixtures/rules');
const defaultContext: RuleContext = { targetArch: 'x86_64', env: {} };

/** The context a rule's examples are checked with: its fixture folder's context.json, if any. */
function contextFor(id: string): RuleContext {
  const file = `${fixturesDir}/${id}/context.json`;
  if (!existsSync(file)) return defaultContext;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<RuleContext>;
  return {
    targetArch: raw.targetArch ?? 'x86_64',
    env: raw.env ?? {},
    ...(raw.provides ? { provides: raw.provides } : {}),
    ...(raw.target ? { target: raw.target } : {}),
  };
}

/** Every feature and box programme a setting can ask for, as `feature:<name>` / `program:<name>` with its availability. */
function requestedPartsOfAll(): Array<{ part: string; available: boolean }> {
  return [
    ...Object.entries(boxFacts.features as BoxFactsShape['features']).map(([n, f]) => ({ part: `feature:${n}`, available: f.available })),
    ...Object.entries(boxFacts.programs.box as BoxFactsShape['programs']['box']).map(([n, p]) => ({ part: `program:${n}`, available: p.available })),
  ];
}

/** Every diagnostic id (rule, schema or TOML) the source produces. */
async function diagnosticIds(source: string, context: RuleContext): Promise<string[]> {
  const r = await loadManifestSource(source, context);
  return r.diagnostics.map((d) => d.id);
}

/** The body of the first ```toml block under `## <heading>`. */
function tomlBlock(doc: string, heading: string): string | undefined {
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  return section ? /```toml\n([\s\S]*?)```/.exec(section)?.[1] : undefined;
}

t.test('ids are unique, well-formed and match their severity', async (t) => {
  const ids = ruleCatalogue.map((r) => r.id);
  t.same([...new Set(ids)], ids, 'no duplicate ids');
  t.ok(ruleCatalogue.length >= 32, `at least 32 rules (have ${ruleCatalogue.length})`);
  for (const r of ruleCatalogue) {
    t.match(r.id, /^[EW]\d{3}$/, `${r.id} has the form E### or W###`);
    t.equal(r.severity, r.id.startsWith('E') ? 'error' : 'warning', `${r.id} severity matches its letter`);
    t.ok(r.summary.length > 10 && !r.summary.includes('\n'), `${r.id} has a one-line summary`);
  }
});

t.test('aliases are unique kebab-case', async (t) => {
  const aliases = ruleCatalogue.map((r) => r.alias);
  t.same([...new Set(aliases)], aliases, 'no duplicate aliases');
  for (const a of aliases) t.match(a, /^[a-z0-9]+(-[a-z0-9]+)*$/, `${a} is kebab-case`);
});

t.test('retired ids and aliases are never reused', async (t) => {
  const retiredIds = new Set(retiredRules.map((r) => r.id));
  const retiredAliases = new Set(retiredRules.map((r) => r.alias));
  t.equal(retiredIds.size, retiredRules.length, 'each id is retired once');
  for (const r of ruleCatalogue) {
    t.notOk(retiredIds.has(r.id), `${r.id} is not a retired id`);
    t.notOk(retiredAliases.has(r.alias), `${r.alias} is not a retired alias`);
  }
  for (const r of retiredRules) t.match(r.id, /^[EW]\d{3}$/, `retired ${r.id} is a rule id`);
});

t.test('the catalogue lists rules in id order', async (t) => {
  const ids = ruleCatalogue.map((r) => r.id);
  t.same(ids, [...ids].sort(), 'sorted by id');
});

t.test('one source file per rule, named <id>-<alias>.ts, exporting that rule', async (t) => {
  const files = readdirSync(rulesDir).filter((f) => /^[ew]\d{3}-/.test(f));
  const expected = ruleCatalogue.map((r) => `${r.id.toLowerCase()}-${r.alias}.ts`);
  t.same([...files].sort(), [...expected].sort(), 'rule files and catalogue agree');
  for (const r of ruleCatalogue) {
    const mod = (await import(`${rulesDir}/${r.id.toLowerCase()}-${r.alias}.ts`)) as Record<string, unknown>;
    const rules = Object.values(mod).filter((v): v is Rule => typeof v === 'object' && v !== null && 'check' in v);
    t.same(
      rules.map((x) => x.id),
      [r.id],
      `${r.id}'s file exports exactly that rule`,
    );
    const first = readFileSync(`${rulesDir}/${r.id.toLowerCase()}-${r.alias}.ts`, 'utf8').split('\n')[0];
    t.match(first, /^\/\/ \S/, `${r.id}'s file starts with a role comment`);
  }
});

t.test('every rule has a doc page, and every page has a rule', async (t) => {
  const pages = readdirSync(docsDir).filter((f) => f !== 'README.md');
  t.same([...pages].sort(), ruleCatalogue.map((r) => `${r.id}.md`).sort(), 'no missing or orphan pages');
  const readme = readFileSync(`${docsDir}/README.md`, 'utf8');
  for (const r of ruleCatalogue) t.match(readme, `| [${r.id}](${r.id}.md) | \`${r.alias}\` | ${r.severity} |`, `README lists ${r.id}`);
  t.match(readme, /^## Retired ids$/m, 'README has a retired ids section');
  const retiredSection = readme.split(/^## Retired ids$/m)[1] ?? '';
  for (const r of retiredRules) {
    t.match(retiredSection, `| ${r.id} | \`${r.alias}\` |`, `README lists retired ${r.id} with its alias`);
    t.notOk(existsSync(`${docsDir}/${r.id}.md`), `retired ${r.id} has no page`);
    t.notOk(existsSync(`${fixturesDir}/${r.id}`), `retired ${r.id} has no fixture folder`);
    t.ok(r.retired.length > 10, `retired ${r.id} says why`);
  }
});

t.test('doc pages: title, severity, and examples that behave as documented', async (t) => {
  for (const r of ruleCatalogue) {
    const doc = readFileSync(`${docsDir}/${r.id}.md`, 'utf8');
    t.equal(doc.split('\n')[0], `# ${r.id} ${r.alias}`, `${r.id} title`);
    t.match(doc, new RegExp(`^Severity: ${r.severity}$`, 'm'), `${r.id} severity`);
    t.match(doc, /^## How to fix$/m, `${r.id} says how to fix`);
    const bad = tomlBlock(doc, 'Bad');
    const good = tomlBlock(doc, 'Good');
    t.ok(bad, `${r.id} has a Bad toml example`);
    t.ok(good, `${r.id} has a Good toml example`);
    t.same(await diagnosticIds(bad ?? '', contextFor(r.id)), [r.id], `${r.id}: the Bad example triggers exactly ${r.id}`);
    t.same(await diagnosticIds(good ?? '', contextFor(r.id)), [], `${r.id}: the Good example is clean`);
  }
});

t.test('every rule has a fixture folder, and every folder has a rule', async (t) => {
  const folders = readdirSync(fixturesDir);
  t.same([...folders].sort(), ruleCatalogue.map((r) => r.id).sort(), 'no missing or orphan fixture folders');
  for (const id of folders) {
    const extra = readdirSync(`${fixturesDir}/${id}`).filter((f) => !['bad.toml', 'good.toml', 'context.json'].includes(f));
    t.same(extra, [], `${id} holds only bad.toml, good.toml and context.json`);
  }
});

t.test('each bad.toml triggers exactly its rule; each good.toml is clean', async (t) => {
  for (const r of ruleCatalogue) {
    const dir = `${fixturesDir}/${r.id}`;
    const context = contextFor(r.id);
    t.same(await diagnosticIds(readFileSync(`${dir}/bad.toml`, 'utf8'), context), [r.id], `${r.id}/bad.toml triggers exactly ${r.id}`);
    t.same(await diagnosticIds(readFileSync(`${dir}/good.toml`, 'utf8'), context), [], `${r.id}/good.toml is clean`);
  }
});

t.test('context.json files are well-formed', async (t) => {
  for (const r of ruleCatalogue) {
    const file = `${fixturesDir}/${r.id}/context.json`;
    if (!existsSync(file)) continue;
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    t.same(
      Object.keys(raw)
        .filter((k) => k !== 'provides' && k !== 'target')
        .sort(),
      ['env', 'targetArch'],
      `${r.id}/context.json has targetArch, env and at most provides and target`,
    );
    t.ok(raw.targetArch === 'x86_64' || raw.targetArch === 'aarch64', `${r.id}/context.json targetArch is known`);
    if ('target' in raw) t.ok(['compose', 'kubernetes', 'agent-sandbox'].includes(raw.target as string), `${r.id}/context.json target is a render target`);
    if ('provides' in raw) {
      // Only the rules of a part this build lacks may pretend a build that has it (their examples
      // would otherwise always trigger E036 too); each name must be such a part.
      const lacking = requestedPartsOfAll()
        .filter((p) => !p.available)
        .map((p) => p.part);
      t.ok(
        Array.isArray(raw.provides) && (raw.provides as unknown[]).every((p) => lacking.includes(p as string)),
        `${r.id}/context.json provides only parts this build lacks (${lacking.join(', ')})`,
      );
    }
  }
});
