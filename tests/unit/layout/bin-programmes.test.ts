// management-api/src/bin/ holds one process entry per programme of schema/box-facts.json (programs.box) and one for the image's entrypoint, each run by its config/bin wrapper through its bundle, dist/box/<name>.js.
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { boxFacts } from '../../../management-api/src/box-facts.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const binDir = path.join(repo, 'management-api/src/bin');

/** A process entry is a shell around a library call (env in, exit code out); past this many lines, logic has crept in. */
const MAX_ENTRY_LINES = 40;

/** The part of the facts file this test reads. */
type FactsOfBin = { image: { entrypoint: string }; programs: { box: Readonly<Record<string, { argv: readonly string[] }>> } };

/** What must have an entry in bin/: its name there (`<name>.ts`) and the config/bin command that runs it. */
interface Entry {
  what: string;
  name: string;
  command: string;
}

/** Every box programme under its facts name, and the image's entrypoint under its command's name without the `agentbox-` prefix. */
function expectedEntries(facts: FactsOfBin): Entry[] {
  const programmes = Object.entries(facts.programs.box).map(([name, programme]) => ({
    what: `programme ${name}`,
    name,
    command: programme.argv[0]!.replace(/^@bin@\//, ''),
  }));
  return [...programmes, { what: 'the image entrypoint', name: facts.image.entrypoint.replace(/^agentbox-/, ''), command: facts.image.entrypoint }];
}

/**
 * What ties bin/ to the facts file, broken: an entry or wrapper missing, a wrapper that runs
 * something else or something outside bin/, a bin file no wrapper of a listed programme runs.
 * `wrapper(command)` is the text of config/bin/<command>, undefined when there is none.
 */
function binProblems(facts: FactsOfBin, binFiles: readonly string[], wrapper: (command: string) => string | undefined): string[] {
  const problems: string[] = [];
  const run = new Set<string>();
  for (const entry of expectedEntries(facts)) {
    if (!binFiles.includes(`${entry.name}.ts`)) problems.push(`${entry.what}: management-api/src/bin/${entry.name}.ts is missing`);
    const text = wrapper(entry.command);
    if (text === undefined) {
      problems.push(`${entry.what}: config/bin/${entry.command} is missing`);
      continue;
    }
    // The wrappers run the bundles of the bin/ entries (scripts/build/bundle-box.mjs), never the compiled modules.
    const runs = [...text.matchAll(/dist\/([\w/.-]+)\.js/g)].map((m) => m[1]!);
    if (!runs.includes(`box/${entry.name}`)) problems.push(`${entry.what}: config/bin/${entry.command} does not run dist/box/${entry.name}.js`);
    for (const target of runs) {
      if (!target.startsWith('box/'))
        problems.push(`config/bin/${entry.command} runs dist/${target}.js: a programme runs the bundle of its process entry, dist/box/<name>.js`);
      else if (!binFiles.includes(`${target.slice('box/'.length)}.ts`))
        problems.push(`config/bin/${entry.command} runs dist/${target}.js, which has no management-api/src/bin/${target.slice('box/'.length)}.ts`);
      else run.add(`${target.slice('box/'.length)}.ts`);
    }
  }
  for (const file of binFiles) {
    if (!run.has(file))
      problems.push(
        `management-api/src/bin/${file} is no programme of schema/box-facts.json (programs.box), nor the entrypoint or a process its wrapper starts: list the programme there, or move the file out of bin/`,
      );
  }
  return problems;
}

const binFiles = readdirSync(binDir).filter((f) => f.endsWith('.ts'));
const realWrapper = (command: string): string | undefined => {
  const file = path.join(repo, 'config/bin', command);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};

t.test('every box programme and the entrypoint has its bin/ file and its config/bin wrapper running it; bin/ holds nothing else', async (t) => {
  t.ok(binFiles.length >= Object.keys(boxFacts.programs.box).length + 1, 'bin/ files found');
  t.same(binProblems(boxFacts, binFiles, realWrapper), []);
});

t.test('every bin/ file is only a process shell', async (t) => {
  const long = binFiles.filter((f) => readFileSync(path.join(binDir, f), 'utf8').split('\n').length > MAX_ENTRY_LINES);
  t.same(
    long,
    [],
    `a bin/ file reads the environment, calls its area's library function and maps the outcome to an exit code, in at most ${MAX_ENTRY_LINES} lines: move the rest into the area`,
  );
});

t.test('the check names a missing entry, a missing or stray wrapper target, and an extra bin file', async (t) => {
  const facts = {
    image: { ...boxFacts.image, entrypoint: 'agentbox-entrypoint' },
    programs: { ...boxFacts.programs, box: { api: { ...boxFacts.programs.box['management-api']!, argv: ['@bin@/agentbox-api'] } } },
  };
  const wrappers: Record<string, string> = {
    'agentbox-api': 'exec node "$app/dist/management-api/src/bin/api.js"\n',
    'agentbox-entrypoint': 'node "$app/dist/box/entrypoint.js"\nnode "$app/dist/box/waker.js"\n',
  };
  t.same(
    binProblems(facts, ['entrypoint.ts', 'extra.ts'], (c) => wrappers[c]),
    [
      'programme api: management-api/src/bin/api.ts is missing',
      'programme api: config/bin/agentbox-api does not run dist/box/api.js',
      'config/bin/agentbox-api runs dist/management-api/src/bin/api.js: a programme runs the bundle of its process entry, dist/box/<name>.js',
      'config/bin/agentbox-entrypoint runs dist/box/waker.js, which has no management-api/src/bin/waker.ts',
      'management-api/src/bin/extra.ts is no programme of schema/box-facts.json (programs.box), nor the entrypoint or a process its wrapper starts: list the programme there, or move the file out of bin/',
    ],
  );
  t.same(
    binProblems(facts, ['entrypoint.ts', 'api.ts'], (c) => (c === 'agentbox-api' ? undefined : wrappers[c])),
    [
      'programme api: config/bin/agentbox-api is missing',
      'config/bin/agentbox-entrypoint runs dist/box/waker.js, which has no management-api/src/bin/waker.ts',
      'management-api/src/bin/api.ts is no programme of schema/box-facts.json (programs.box), nor the entrypoint or a process its wrapper starts: list the programme there, or move the file out of bin/',
    ],
  );
});
