// Stage 1: TOML text → plain object, with syntax errors located by line and column.
import { parse, TomlError } from 'smol-toml';
import type { Diagnostic } from './diagnostics.js';

/** Result of parsing: the document, or one diagnostic describing the syntax error. */
export type ParseResult = { ok: true; value: Record<string, unknown> } | { ok: false; diagnostic: Diagnostic };

/** Parse TOML source. Never throws for bad input. */
export function parseToml(source: string): ParseResult {
  try {
    return { ok: true, value: parse(source) as Record<string, unknown> };
  } catch (err) {
    if (err instanceof TomlError) {
      const headline = err.message.split('\n')[0]?.replace(/^Invalid TOML document:\s*/, '') ?? 'invalid TOML';
      return syntaxError(headline, 'fix the TOML syntax at the marked position (see https://toml.io/en/v1.0.0)', {
        line: err.line,
        column: err.column,
        frame: err.codeblock.replace(/\n+$/, ''),
      });
    }
    // smol-toml signals every document problem with TomlError; anything else (e.g. stack
    // exhaustion on absurd nesting) is still a syntax problem of the input, not a crash.
    return syntaxError((err as Error).message, 'simplify the document (for example, reduce nesting depth)', {});
  }
}

function syntaxError(detail: string, hint: string, where: Pick<Diagnostic, 'line' | 'column' | 'frame'>): ParseResult {
  return {
    ok: false,
    diagnostic: { id: 'TOML', alias: 'toml-syntax', severity: 'error', source: 'toml', message: `not valid TOML: ${detail}`, pointer: '', hint, ...where },
  };
}
