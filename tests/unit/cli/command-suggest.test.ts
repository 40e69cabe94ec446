// The CLI's guess for a command it does not know: typos within a letter or two, a container user's words, and no guess when nothing is close.
import t from 'tap';
import { suggestCommand } from '../../../scripts/cli/command-suggest.js';

const TOP = ['config', 'run', 'ps', 'logs', 'kill', 'cp', 'snapshot', 'backup', 'restore', 'up', 'down', 'exec', 'attach'];

t.test('a typo names the command meant', async (t) => {
  t.equal(suggestCommand('snapshott', TOP), 'snapshot');
  t.equal(suggestCommand('restor', TOP), 'restore');
  t.equal(suggestCommand('kil', TOP), 'kill');
  t.equal(suggestCommand('Logs', TOP), 'logs', 'case is no typo');
});

t.test("a container user's word names ours, only when ours is there", async (t) => {
  t.equal(suggestCommand('stop', TOP), 'kill');
  t.equal(suggestCommand('start', TOP), 'run');
  t.equal(suggestCommand('top', TOP), 'ps');
  t.equal(suggestCommand('stop', ['ls', 'rm']), undefined, 'a group without kill: no such guess');
});

t.test('nothing close, no guess', async (t) => {
  t.equal(suggestCommand('frobnicate', TOP), undefined);
  t.equal(suggestCommand('xyz', TOP), undefined, 'a short word allows one letter, not three');
  t.equal(suggestCommand('', TOP), undefined);
  t.equal(suggestCommand('run', []), undefined);
});
