// Which link targets a tar upload (and an `agentbox cp` download, extracted by the same checks) accepts: relative, every `..`
// first, never climbing above the workspace (the copy) from the link's own directory; a chain of links each so held stays inside.
import t from 'tap';
import { checkEntry } from '../../management-api/src/workspace-files/tar-entry-checks.js';

const link = (name: string, target: string) => ({ name, type: 'symlink', linkname: target });

t.test('accepted: names below, leading climbs within the depth, . and empty parts', async (t) => {
  const cases: Array<[string[], string, string]> = [
    [[], 'a', 'lib/a.ts'],
    [[], 'a', './lib//a.ts'],
    [[], 'a', '.'],
    [[], 'src/a', '../lib/a.ts'],
    [['up', 'c'], 'a', '../..'],
    [['up', 'c'], 'a', '../../x/y'],
    [[], 'x/y/z', '../../top'],
    [[], 'x/y/z', './../.././top'],
  ];
  for (const [base, name, target] of cases)
    t.match(checkEntry(link(name, target), base), { kind: 'symlink', target }, `${base.join('/')}|${name} -> ${target}`);
});

t.test('refused: absolute, empty, climbing out, and any .. after a name (a name may be a link that climbs further)', async (t) => {
  const cases: Array<[string[], string, string, RegExp]> = [
    [[], 'a', '/etc', /absolute path/],
    [[], 'a', '', /empty target/],
    [[], 'a', '..', /points outside the workspace/],
    [[], 'src/a', '../../x', /points outside the workspace/],
    [['up', 'c'], 'a', '../../..', /points outside the workspace/],
    // The chain of the report: `l1 -> l0/..` reads as inside, yet climbs from wherever l0 leads.
    [[], 'esc/l1', 'l0/..', /a "\.\." after a name/],
    [['up', 'c'], 'b', 'a/..', /a "\.\." after a name/],
    [[], 'a', 'x/../y', /a "\.\." after a name/],
    [[], 'x/a', '../b/..', /a "\.\." after a name/],
    [[], 'x/y/a', './../z/../..', /a "\.\." after a name/],
    [[], 'a', 'x/y/..', /a "\.\." after a name/],
  ];
  for (const [base, name, target, why] of cases)
    t.throws(() => checkEntry(link(name, target), base), { code: 'ABX_ERR_TAR_REFUSED', message: why }, `${base.join('/')}|${name} -> ${target}`);
});
