// No fact of the box is written in both Nix and TypeScript: every path, programme or feature
// name, command, fixed port or slot implementation a source names is one schema/box-facts.json
// lists, and a fact is read from that file rather than spelled out in both languages.
import t from 'tap';
import { factLiterals, pathsIn, sourceLiterals, type Literal } from './fact-literals.js';

/**
 * Literals allowed although they look like facts, each with its reason. Kept small: anything else
 * is read from the facts file.
 */
const allowed: ReadonlyArray<{ match: (l: Literal) => boolean; why: string }> = [
  {
    match: (l) =>
      l.lang === 'ts' &&
      /rules\/e00[24]-|rules\/e039-|rules\/w008-/.test(l.file) &&
      pathsIn(l.text).every((p) => p === '/run/secrets' || p.startsWith('/run/secrets/')),
    why: 'hints name /run/secrets/<file>, where Docker mounts secrets, as an example of a secret file: not a path of the box',
  },
];

const literals = sourceLiterals().filter((l) => !allowed.some((a) => a.match(l)));
const where = (ls: Literal[]) => [...new Set(ls.map((l) => `${l.file}: ${JSON.stringify(l.text).slice(0, 90)}`))];

t.test('the scan sees every language and finds literals', async (t) => {
  for (const lang of ['nix', 'ts', 'sh'] as const) t.ok(literals.filter((l) => l.lang === lang).length > 10, `${lang} literals are read`);
  t.same(pathsIn('x/run/agentbox/bootstrap.done'), ['/run/agentbox/bootstrap.done'], 'a path under a root counts');
  t.same(pathsIn('./run-command.js /runtime http://host/workspace'), [], 'look-alikes do not');
});

t.test('every path under the box prefixes a source names is one the facts file lists', async (t) => {
  const unlisted = literals.filter((l) => pathsIn(l.text).some((p) => !factLiterals.paths.has(p)));
  t.same(where(unlisted), [], 'add the path to schema/box-facts.json and read it from there');
});

t.test('no source spells out a path, command or fixed port of the facts file: both languages read them', async (t) => {
  const paths = literals.filter((l) => pathsIn(l.text).some((p) => factLiterals.paths.has(p)));
  t.same(where(paths), [], 'read runtime and image paths from the facts file (lib/paths.nix, runtime-paths.ts, box-facts.ts)');
  const commands = literals.filter((l) => l.kind === 'string' && [...factLiterals.commands].some((c) => new RegExp(`/${c}($|[ "'])`).test(l.text)));
  t.same(where(commands), [], 'read the paths of the box commands from the facts file');
  const ports = literals.filter((l) => factLiterals.ports.has(l.kind === 'number' ? l.text : (/(?:^|:)(\d+)$/.exec(l.text)?.[1] ?? '')));
  t.same(where(ports), [], "read the features' fixed ports from the facts file");
});

t.test('box commands and slot implementations a source names are ones the facts file lists', async (t) => {
  const commands = literals.filter((l) => [...l.text.matchAll(/(?:^|\/)bin\/(agentbox-[a-z-]+)/g)].some((m) => !factLiterals.commands.has(m[1]!)));
  t.same(where(commands), [], 'a command under bin/ that the facts file does not list');
  const impls = literals.filter(
    (l) => /^(local|external)-[a-z]+$/.test(l.text.replace(/^[a-z]+\//, '')) && !factLiterals.impls.has(l.text.replace(/^[a-z]+\//, '')),
  );
  t.same(where(impls), [], 'a slot implementation that the facts file does not list');
});

t.test('no programme, feature, command or implementation name is written in both Nix and TypeScript', async (t) => {
  const names = new Set([...factLiterals.names, ...factLiterals.commands, ...factLiterals.impls]);
  const byName = new Map<string, Set<string>>();
  for (const l of literals) {
    if (l.kind !== 'string' || !names.has(l.text)) continue;
    byName.set(l.text, (byName.get(l.text) ?? new Set()).add(l.lang === 'nix' ? 'nix' : 'ts'));
  }
  const both = [...byName].filter(([, langs]) => langs.size > 1).map(([name]) => `${name}: ${where(literals.filter((l) => l.text === name)).join('; ')}`);
  t.same(both, [], 'read the name from the facts file on one side at least');
});
