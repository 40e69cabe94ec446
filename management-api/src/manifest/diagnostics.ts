// The one shape every manifest problem is reported in, and how it is printed for people.

/** Severity of a diagnostic: errors fail validation (exit 1), warnings do not. */
export type Severity = 'error' | 'warning';

/** Which stage found the problem: TOML syntax, JSON Schema shape, or a semantic rule. */
export type DiagnosticSource = 'toml' | 'schema' | 'rule' | 'io';

/** A problem found in a manifest, located in the TOML file and in the JSON document. */
export interface Diagnostic {
  /** Stable id: a rule id (E001, W003), or SCHEMA / TOML / IO for the earlier stages. */
  id: string;
  /** Kebab-case alias of the id (the rule alias, or e.g. `unknown-key`). */
  alias: string;
  severity: Severity;
  source: DiagnosticSource;
  /** What is wrong, in one sentence. */
  message: string;
  /** JSON pointer of the offending value in the normalized manifest ('' for the root). */
  pointer: string;
  /** 1-based line and column in the TOML file, when the key exists there. */
  line?: number;
  column?: number;
  /** What would fix it. */
  hint?: string;
  /** For TOML syntax errors: the source lines around the error. */
  frame?: string;
}

/** Render a diagnostic as `file:line:col: error E001 alias: message` plus hint and frame lines. */
export function formatDiagnostic(file: string, d: Diagnostic): string {
  const where = d.line !== undefined ? `${file}:${d.line}:${d.column ?? 1}` : file;
  const key = d.pointer ? ` at ${pointerToKeyPath(d.pointer)}` : '';
  const lines = [`${where}: ${d.severity} ${d.id} ${d.alias}${key}: ${d.message}`];
  if (d.frame) lines.push(indent(d.frame));
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  return lines.join('\n');
}

/** `/programs/web/priority` → `programs.web.priority` (the way TOML users write keys). */
export function pointerToKeyPath(pointer: string): string {
  return pointerSegments(pointer)
    .map((seg) => (/^[A-Za-z0-9_-]+$/.test(seg) ? seg : JSON.stringify(seg)))
    .join('.');
}

/** Split a JSON pointer into unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Join segments into a JSON pointer, escaping `~` and `/`. */
export function toPointer(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  | ${l}`)
    .join('\n');
}
