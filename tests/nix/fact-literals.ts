// Reads the literals out of the project's Nix, TypeScript and shell sources, and the facts out of
// schema/box-facts.json, for the test that no fact of the box is written by hand.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../helpers/cli.js';
import { boxFacts, type BoxFactsShape } from '../../management-api/src/box-facts.js';

/** One literal of a source file: a string (or template piece) or a number. */
export interface Literal {
  file: string;
  text: string;
  kind: 'string' | 'number';
  lang: 'nix' | 'ts' | 'sh';
}

/** Files under `dir` (recursive) whose names end with one of `exts`. */
function filesUnder(dir: string, exts: string[]): string[] {
  return readdirSync(path.join(repoRoot, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(repoRoot, rel)).isDirectory()) return filesUnder(rel, exts);
    return exts.some((e) => name.endsWith(e)) ? [rel] : [];
  });
}

/** String and numeric literals of Nix files, from `nix-instantiate --parse` (one line per file, comments dropped). */
function nixLiterals(files: string[]): Literal[] {
  const r = spawnSync('nix-instantiate', ['--parse', ...files], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`nix-instantiate --parse: ${r.stderr}`);
  const parsed = r.stdout.split('\n').filter(Boolean);
  if (parsed.length !== files.length) throw new Error(`nix-instantiate --parse printed ${parsed.length} expressions for ${files.length} files`);
  return parsed.flatMap((expr, i) => {
    const file = files[i]!;
    const out: Literal[] = [];
    const rest = expr.replace(/"((?:[^"\\]|\\.)*)"/g, (_m, body: string) => {
      out.push({ file, text: body.replace(/\\(.)/g, (_e, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c), kind: 'string', lang: 'nix' });
      return '""';
    });
    for (const m of rest.matchAll(/(?<![\w."])\d+(?![\w.])/g)) out.push({ file, text: m[0], kind: 'number', lang: 'nix' });
    return out;
  });
}

/** String, template and numeric literals of a TypeScript or JavaScript file (module specifiers left out). */
function tsLiterals(file: string): Literal[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, false);
  const out: Literal[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      out.push({ file, text: node.text, kind: 'string', lang: 'ts' });
    } else if (ts.isNumericLiteral(node)) {
      out.push({ file, text: node.text, kind: 'number', lang: 'ts' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Each non-comment line of a shell script, as one literal. */
function shellLiterals(file: string): Literal[] {
  return readFileSync(path.join(repoRoot, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'))
    .map((text) => ({ file, text, kind: 'string' as const, lang: 'sh' as const }));
}

/**
 * Every literal of the sources that could state a fact: lib/*.nix (without lib/tests/, whose
 * expected values are written out on purpose), management-api/src (without the files generated
 * from the schema), scripts/ and config/bin/.
 */
export function sourceLiterals(): Literal[] {
  const nix = filesUnder('lib', ['.nix']).filter((f) => !f.startsWith('lib/tests/'));
  const tsFiles = [...filesUnder('management-api/src', ['.ts']).filter((f) => !f.includes('/generated/')), ...filesUnder('scripts', ['.ts', '.mjs'])];
  const sh = filesUnder('config/bin', ['']);
  return [...nixLiterals(nix), ...tsFiles.flatMap(tsLiterals), ...sh.flatMap(shellLiterals)];
}

const facts = boxFacts as unknown as BoxFactsShape;
const boxPrograms = Object.entries(facts.programs.box);
const features = Object.entries(facts.features);
const argvCommands = [...boxPrograms.map(([, p]) => p.argv[0]!), ...features.flatMap(([, f]) => f.programs.map((p) => p.argv[0]!))];

/** The facts, by kind, as they would be written in a source. */
export const factLiterals = {
  /** Every absolute path the facts file states (runtime layout, image layout, baseline, the box's commands). */
  paths: new Set<string>([
    ...Object.values(facts.runtime.dirs),
    ...Object.values(facts.runtime.files),
    facts.image.appDir,
    facts.image.binDir,
    facts.image.homeDir,
    ...facts.baseline.protectedPaths,
    ...Object.keys(facts.baseline.tmpfs),
    ...argvCommands.filter((c) => c.startsWith('@bin@/')).map((c) => c.replace('@bin@', facts.image.binDir)),
    `${facts.image.binDir}/${facts.image.entrypoint}`,
  ]),
  /** The box's and its features' programme names, and the features' (exception) names. */
  names: new Set<string>([...boxPrograms.map(([n]) => n), ...features.flatMap(([n, f]) => [n, ...f.programs.map((p) => p.name)])]),
  /** The box's own commands (config/bin). */
  commands: new Set<string>([...argvCommands.filter((c) => c.startsWith('@bin@/')).map((c) => c.slice('@bin@/'.length)), facts.image.entrypoint]),
  /** The features' fixed ports. */
  ports: new Set<string>(features.flatMap(([, f]) => f.programs.filter((p) => p.port !== 0).map((p) => String(p.port)))),
  /** The slots' local and external implementation names. */
  impls: new Set<string>(Object.values(facts.slots).flatMap((s) => [s.local, s.external])),
};

/** Path-shaped pieces of a literal under the box's own prefixes (absolute, or relative under a root). */
export function pathsIn(text: string): string[] {
  const found: string[] = [];
  const re =
    /(?<![\w.@-])\/?(?:run\/agentbox|var\/lib\/agentbox|var\/log\/agentbox|etc\/agentbox|opt\/agentbox)(?:\/[\w.@-]+)*|(?<![\w.@/-])\/(?:workspace|run)(?:\/[\w.@-]+)*(?![\w@-])/g;
  for (const m of text.matchAll(re)) found.push(m[0].startsWith('/') ? m[0] : `/${m[0]}`);
  return found;
}
