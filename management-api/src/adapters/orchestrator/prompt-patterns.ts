// The prompts that mean a terminal program waits for a person: the one list the box matches a quiet tty agent's screen against.

/**
 * One pattern per kind of prompt, each matched case-insensitively against one line of the screen
 * (trailing blanks removed). Anchored to the end of the line where the prompt is a question, so a
 * line that merely quotes `(y/n)` in the middle of other text (a log line, an answered prompt with
 * its echo) is not a prompt. docs/user/agents.md ("Input requests") lists the same.
 */
export const PROMPT_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  // (y/n), [Y/n], [y/N], (yes/no), [yes/no] — then perhaps a default in brackets and a closing ':', '?' or '>'.
  { name: 'yes-no', pattern: /[([]\s*y(es)?\s*\/\s*n(o)?\s*[)\]]\s*[:?>]?\s*(\[[^\]]{0,10}\])?\s*[:?>]?$/i },
  { name: 'continue', pattern: /\b(continue|proceed)\s*\?\s*[:>]?$/i },
  // Password:, [sudo] password for ann:, Enter passphrase for key '…':
  { name: 'password', pattern: /\bpass(word|phrase)\b[^\n]{0,80}:\s*$/i },
  // Press Enter to continue…, Press any key — anywhere on the line, which the cursor is on.
  { name: 'press-enter', pattern: /\bpress\s+(enter|return|any key)\b/i },
  { name: 'are-you-sure', pattern: /\bare you sure\b.*\?\s*[:>]?$/i },
];

/** A line that matched, and which pattern. */
export interface PromptMatch {
  /** The line as the screen shows it (trailing blanks removed). */
  line: string;
  pattern: string;
}

/** The first pattern `line` matches, or undefined. Lines longer than 500 characters are not prompts (and cost nothing to refuse). */
export function matchPrompt(line: string): PromptMatch | undefined {
  const text = line.trimEnd();
  if (text.length === 0 || text.length > 500) return undefined;
  for (const { name, pattern } of PROMPT_PATTERNS) if (pattern.test(text)) return { line: text, pattern: name };
  return undefined;
}
