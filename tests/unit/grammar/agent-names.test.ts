// Several agents started at once are named NAME-1 … NAME-N in one place (grammar/agent-name.ts), and
// a base too long for its count is said before any start: the names it makes are names the box takes.
import t from 'tap';
import { AGENT_NAME, AGENT_NAME_MAX, numberedNames, numberedNamesTooLong } from '../../../management-api/src/grammar/agent-name.js';
import { checkSpawnRequest } from '../../../management-api/src/adapters/orchestrator/spawn-request.js';

t.test('numbered names are names the box accepts, up to the longest that fits', async (t) => {
  t.same(numberedNames('try', 3), ['try-1', 'try-2', 'try-3']);
  const base = 'n'.repeat(AGENT_NAME_MAX - 3);
  t.equal(numberedNamesTooLong(base, 10), undefined, 'n…-10 is exactly 64 characters');
  for (const name of numberedNames(base, 10)) {
    t.match(name, AGENT_NAME);
    t.doesNotThrow(() => checkSpawnRequest({ name, command: 'true', args: [] }), name);
  }
  const problem = numberedNamesTooLong(base, 100);
  t.match(problem, /"n+-100" is longer than an agent name may be \(64 characters\)/);
  t.throws(() => checkSpawnRequest({ name: `${base}-100`, command: 'true', args: [] }), /must be 1–64 letters/, 'the box would refuse what the check says');
});

t.test('the name grammar refuses what it must', async (t) => {
  for (const bad of ['', '-a', 'a.b', 'a b', 'é', 'n'.repeat(AGENT_NAME_MAX + 1)]) t.notMatch(bad, AGENT_NAME, JSON.stringify(bad));
});
