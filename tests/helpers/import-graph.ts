// The relative imports between TypeScript files, read with TypeScript's own pre-processor, and cycles in them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** file → the files it imports (absolute `.ts` paths). */
export type ImportGraph = Map<string, string[]>;

/** Every `.ts` file under `dir`, recursively, in a stable order. */
export function typeScriptFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...typeScriptFiles(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/**
 * The relative imports of `file`: static imports, `import type`, re-exports and dynamic
 * `import('…')` with a literal specifier (a lazily loaded module is still a dependency), each
 * resolved from its `.js` specifier to the `.ts` source. Package imports are left out.
 */
export function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out: string[] = [];
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts');
    if (existsSync(target)) out.push(target);
  }
  return out;
}

/** The import graph of every `.ts` file under `dirs`. */
export function importGraph(dirs: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const dir of dirs) for (const file of typeScriptFiles(dir)) graph.set(file, relativeImports(file));
  return graph;
}

/** Each import cycle found by a depth-first search, as the files along it (first file repeated at the end). */
export function findCycles(graph: ImportGraph): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

/** One relative import that is still there at run time: the `.ts` file it names and the statement, as written. */
export interface ValueImport {
  target: string;
  statement: string;
}

/**
 * The relative imports of `file` that survive compilation: static imports and re-exports that
 * bind at least one value (or none: a bare `import './x.js'` runs the module), and dynamic
 * `import('…')` with a literal specifier. `import type`, `export type` and imports whose every
 * name is marked `type` vanish at run time and are left out, as are package imports.
 */
export function relativeValueImports(file: string): ValueImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: ValueImport[] = [];
  const add = (specifier: string, node: ts.Node): void => {
    if (!specifier.startsWith('.')) return;
    const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
    if (existsSync(target)) out.push({ target, statement: node.getText(source).replace(/\s+/g, ' ') });
  };
  const typeOnly = (names: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): boolean => names.length > 0 && names.every((n) => n.isTypeOnly);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const erased =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            typeOnly(clause.namedBindings.elements)));
      if (!erased) add(node.moduleSpecifier.text, node);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const erased = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && typeOnly(node.exportClause.elements));
      if (!erased) add(node.moduleSpecifier.text, node);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first !== undefined && ts.isStringLiteralLike(first)) add(first.text, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
