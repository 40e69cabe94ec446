// The building blocks of `agentbox render`, in process: paths in the compose file, the first
// difference of two normalizations, and how nix-instantiate is called and its errors read.
import t from 'tap';
import { composeRelative, firstDifference, packageVersion } from '../../scripts/cli/render-box.js';
import { NixEvalError, nixErrorMessage, nixEvalArgs, nixEvalJson, NixNotFoundError } from '../../scripts/cli/nix-eval.js';

t.test('compose paths are relative when they share a directory below /, else absolute', async (t) => {
  t.equal(composeRelative('/srv/box/out', '/srv/box/agentbox.toml'), '../agentbox.toml');
  t.equal(composeRelative('/srv/box', '/srv/box/agentbox.toml'), './agentbox.toml');
  t.equal(composeRelative('/srv/box', '/srv/box'), '.');
  t.equal(composeRelative('/tmp/out', '/srv/box/agentbox.toml'), '/srv/box/agentbox.toml');
});

t.test('firstDifference names the first differing pointer', async (t) => {
  t.equal(firstDifference({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } }), undefined);
  t.equal(firstDifference({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 3] } }), '/b/c/1');
  t.equal(firstDifference({ a: 1 }, { a: 1, z: 2 }), '/z');
  t.equal(firstDifference(1, '1'), '/');
  t.equal(firstDifference([1], { 0: 1 }), '/');
});

t.test('nix-instantiate is called strict, as JSON, against the dummy store, without substituters', async (t) => {
  t.same(nixEvalArgs({ file: '/x/render.nix', argstr: { a: '1' } }), [
    '--eval',
    '--strict',
    '--json',
    '--store',
    'dummy://',
    '--option',
    'substituters',
    '',
    '--argstr',
    'a',
    '1',
    '/x/render.nix',
  ]);
  t.same(nixEvalArgs({ expr: '1 + 1' }).slice(-2), ['--expr', '1 + 1']);
});

t.test('Nix errors are shown from the first error line, without the trace hint', async (t) => {
  t.equal(
    nixErrorMessage("warning: x\nerror: boom\n       at «string»:1:1\n(use '--show-trace' to show detailed location information)\n"),
    'error: boom\n       at «string»:1:1',
  );
  t.equal(nixErrorMessage('something odd'), 'something odd');
  t.equal(nixErrorMessage(''), 'nix-instantiate failed without a message');
});

t.test('nixEvalJson evaluates, reports evaluation errors, timeouts and a missing binary', async (t) => {
  t.same(await nixEvalJson({ expr: '{ a = [ 1 "x" ]; }' }), { a: [1, 'x'] });
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Nix expression; the interpolation is Nix's own
  t.same(await nixEvalJson({ expr: '{ who }: "hi ${who}"', argstr: { who: 'box' } }), 'hi box');
  await t.rejects(nixEvalJson({ expr: 'throw "the reason"' }), { name: 'NixEvalError', message: /the reason/ });
  await t.rejects(nixEvalJson({ expr: 'let f = x: f x; in f 1' }, { timeoutMs: 50 }), NixEvalError);
  const path = process.env['PATH'];
  process.env['PATH'] = '/nonexistent';
  t.teardown(() => {
    process.env['PATH'] = path;
  });
  await t.rejects(nixEvalJson({ expr: '1' }), NixNotFoundError);
  t.match(new NixNotFoundError().message, /sudo apt-get install nix-bin/);
  t.match(await packageVersion(), /^\d+\.\d+\.\d+/);
});

t.test('renderManifest refuses a manifest whose two normalizations differ, naming where', async (t) => {
  const { renderManifest, NormalizationMismatchError } = await import('../../scripts/cli/render-box.js');
  const options = { manifestFile: '/nonexistent/agentbox.toml', outDir: '/nonexistent/out', context: { targetArch: 'x86_64' as const, env: {} } };
  // Nix prints floats with 6 significant digits: 1.23456789 cannot round-trip.
  await t.rejects(renderManifest(options, '[resources]\ncpus = 1.23456789\n'), NormalizationMismatchError);
  await t.rejects(renderManifest(options, '[resources]\ncpus = 1.23456789\n'), { message: /differ at \/resources\/cpus/ });
  const ok = await renderManifest(options, '[resources]\ncpus = 1.5\n');
  t.equal(ok.rendered?.manifestSha256, ok.validation.sha256);
  const invalid = await renderManifest(options, '[api]\nport = "x"\n');
  t.equal(invalid.rendered, undefined, 'an invalid manifest is not rendered');
  t.equal(invalid.validation.exitCode, 1);
});
