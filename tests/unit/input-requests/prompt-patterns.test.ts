// The prompt patterns: the lines a person is asked on match, lines that merely quote a prompt or carry its answer do not.
import t from 'tap';
import { matchPrompt, PROMPT_PATTERNS } from '../../../management-api/src/adapters/orchestrator/prompt-patterns.js';

const prompts: Array<[line: string, pattern: string]> = [
  ['Continue? (y/n) ', 'yes-no'],
  ['Do you want to continue? [Y/n]', 'yes-no'],
  ['Overwrite config? [y/N]: ', 'yes-no'],
  ['Delete everything (yes/no)? ', 'yes-no'],
  ['Install packages [yes/no] [no]: ', 'yes-no'],
  ['Proceed (Y/N) >', 'yes-no'],
  ['Continue?', 'continue'],
  ['Shall we proceed? ', 'continue'],
  ['Password: ', 'password'],
  ['[sudo] password for ann: ', 'password'],
  ["Password for 'https://ann@github.com': ", 'password'],
  ["Enter passphrase for key '/home/ann/.ssh/id_ed25519': ", 'password'],
  ['Enter PASSPHRASE (empty for no passphrase):', 'password'],
  ['Press Enter to continue...', 'press-enter'],
  ['press any key', 'press-enter'],
  ['Press RETURN when ready', 'press-enter'],
  ['Are you sure you want to drop the table?', 'are-you-sure'],
];
for (const [line, pattern] of prompts) t.match(matchPrompt(line), { line: line.trimEnd(), pattern }, `a prompt: ${JSON.stringify(line)}`);

const notPrompts = [
  '',
  '   ',
  'Overwrite file3? (y/n) skipped',
  'Overwrite? (y/n) no',
  'Continue? (y/n) y',
  'the prompt "(y/n)" is shown when a file exists',
  'continue',
  'We will continue? maybe later.',
  'Password changed successfully',
  'password: updated',
  'passwords are hashed with argon2',
  'Proceeding with the build',
  `${'x'.repeat(600)} (y/n)`,
];
for (const line of notPrompts) t.equal(matchPrompt(line), undefined, `not a prompt: ${JSON.stringify(line.slice(0, 60))}`);

t.test('every pattern is named once and tested', async (t) => {
  const names = PROMPT_PATTERNS.map((p) => p.name);
  t.same(new Set(names).size, names.length);
  t.same([...new Set(prompts.map(([, p]) => p))].sort(), [...names].sort(), 'each pattern has a prompt above');
});
