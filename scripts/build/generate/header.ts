// The banner every generated file carries, so nobody edits one by hand.

/** A comment line marking a file as generated, in the comment syntax of `kind`. */
export function generatedHeader(kind: 'js' | 'md'): string {
  const text = 'generated from schema/agentbox.schema.json by `npm run generate` — do not edit';
  return kind === 'md' ? `<!-- ${text} -->\n` : `// ${text}\n`;
}
