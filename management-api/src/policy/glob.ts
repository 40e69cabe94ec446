// Patterns of policy rules: `*` any run of characters, `?` one character; matched in time linear in the value for star-only patterns, never by a backtracking regular expression.

/** A compiled pattern. */
export interface Glob {
  readonly source: string;
  /** Characters that are neither `*` nor `?`: the literal part, which ranks a rule (specificity). */
  readonly literal: number;
  /** `*` alone: matches everything, so it constrains nothing. */
  readonly any: boolean;
  /** No wildcard at all: an exact value (indexable). */
  readonly exact: boolean;
  test(value: string): boolean;
}

/** Compile `source`. */
export function compileGlob(source: string): Glob {
  const literal = [...source].filter((c) => c !== '*' && c !== '?').length;
  if (!/[*?]/.test(source)) return { source, literal, any: false, exact: true, test: (v) => v === source };
  if (/^\*+$/.test(source)) return { source, literal: 0, any: true, exact: false, test: () => true };
  const parts = source.split('*');
  const head = parts[0]!;
  const tail = parts.length > 1 ? parts[parts.length - 1]! : '';
  const middle = parts.slice(1, -1).filter((p) => p !== '');
  const starred = parts.length > 1;
  return {
    source,
    literal,
    any: false,
    exact: false,
    test(value) {
      if (!starred) return value.length === head.length && segmentAt(value, head, 0);
      if (value.length < head.length + tail.length) return false;
      if (!segmentAt(value, head, 0) || !segmentAt(value, tail, value.length - tail.length)) return false;
      // Leftmost match of each middle segment is never worse than a later one: a greedy scan is exact.
      let from = head.length;
      const end = value.length - tail.length;
      for (const segment of middle) {
        const at = indexOfSegment(value, segment, from, end);
        if (at < 0) return false;
        from = at + segment.length;
      }
      return true;
    },
  };
}

/** Whether `segment` (which may hold `?`) matches `value` at `at`. */
function segmentAt(value: string, segment: string, at: number): boolean {
  if (at < 0 || at + segment.length > value.length) return false;
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c !== 63 /* ? */ && c !== value.charCodeAt(at + i)) return false;
  }
  return true;
}

/** The first position in [from, end - length] where `segment` matches, or -1. */
function indexOfSegment(value: string, segment: string, from: number, end: number): number {
  if (!segment.includes('?')) {
    const at = value.indexOf(segment, from);
    return at >= 0 && at + segment.length <= end ? at : -1;
  }
  for (let at = from; at + segment.length <= end; at++) if (segmentAt(value, segment, at)) return at;
  return -1;
}
