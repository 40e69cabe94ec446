// Maps JSON pointers back to the line and column of their key in the TOML source.
// Loaded only when a diagnostic needs a position, so valid manifests never pay for a second parse.
import { parseTOML } from 'toml-eslint-parser';
import { toPointer } from './diagnostics.js';

/** 1-based source position. */
export interface SourcePosition {
  line: number;
  column: number;
}

type AnyNode = { type: string; loc: { start: { line: number; column: number } }; [k: string]: unknown };

/**
 * Build pointer → position for every key, table header and array element in `source`.
 * A table declared only implicitly (`[a.b]` declares `a`) gets the position of its first header.
 */
export function locateKeys(source: string): Map<string, SourcePosition> {
  const positions = new Map<string, SourcePosition>();
  const put = (path: ReadonlyArray<string | number>, node: AnyNode) => {
    const pointer = toPointer(path);
    if (!positions.has(pointer)) {
      positions.set(pointer, { line: node.loc.start.line, column: node.loc.start.column + 1 });
    }
  };
  let ast: { body: AnyNode[] };
  try {
    ast = parseTOML(source) as unknown as { body: AnyNode[] };
  } catch {
    return positions; // Not parseable here: callers fall back to no position.
  }
  const visitValue = (path: Array<string | number>, value: AnyNode) => {
    if (value.type === 'TOMLInlineTable') {
      for (const kv of value.body as AnyNode[]) visitKeyValue(path, kv);
    } else if (value.type === 'TOMLArray') {
      (value.elements as AnyNode[]).forEach((el, i) => {
        put([...path, i], el);
        visitValue([...path, i], el);
      });
    }
  };
  const visitKeyValue = (base: Array<string | number>, kv: AnyNode) => {
    const keys = ((kv.key as AnyNode).keys as AnyNode[]).map(keyName);
    for (let i = 1; i <= keys.length; i++) put([...base, ...keys.slice(0, i)], kv);
    visitValue([...base, ...keys], kv.value as AnyNode);
  };
  for (const top of ast.body) {
    for (const node of top.body as AnyNode[]) {
      if (node.type === 'TOMLKeyValue') {
        visitKeyValue([], node);
      } else if (node.type === 'TOMLTable') {
        const path = node.resolvedKey as Array<string | number>;
        for (let i = 1; i <= path.length; i++) put(path.slice(0, i), node);
        for (const kv of node.body as AnyNode[]) visitKeyValue(path, kv);
      }
    }
  }
  return positions;
}

/** The position of `pointer`, or of its nearest ancestor present in the source. */
export function nearestPosition(positions: Map<string, SourcePosition>, pointer: string): SourcePosition | undefined {
  let p = pointer;
  for (;;) {
    const hit = positions.get(p);
    if (hit) return hit;
    if (p === '') return undefined;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

function keyName(k: AnyNode): string {
  return (k.type === 'TOMLBare' ? k.name : k.value) as string;
}
