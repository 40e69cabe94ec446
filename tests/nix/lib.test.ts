// lib/tests/ run by nix-instantiate (every { expr; expected; } pair of every topic file), and the
// error messages of lib/ functions: each names the function and what to change.
import t from 'tap';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nixInstantiate, repoRoot } from './helpers.js';

t.test('every pair in lib/tests/ holds', async (t) => {
  const r = nixInstantiate(`
    let lib = import ./lib; tests = import ./lib/tests { inherit lib; };
    in { count = builtins.length (builtins.attrNames tests); failures = lib.runTests { inherit tests; }; }`);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const out = JSON.parse(r.stdout) as { count: number; failures: unknown[] };
  t.same(out.failures, [], 'no failing pair');
  t.ok(out.count >= 49, `${out.count} pairs (49 when lib/tests/ was split by topic)`);
});

t.test('a test name two topic files share is refused, naming both files', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-lib-tests-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(path.join(repoRoot, 'lib/tests'), path.join(dir, 'tests'), { recursive: true });
  writeFileSync(path.join(dir, 'tests/again.nix'), '{ ... }: { shellQuoteKeepsSafeWords = { expr = 1; expected = 1; }; }\n');
  const r = nixInstantiate(`builtins.attrNames (import ${JSON.stringify(path.join(dir, 'tests'))} { lib = import ./lib; })`);
  t.not(r.code, 0, 'evaluation fails');
  t.match(r.stderr, /lib\/tests\/strings\.nix: test shellQuoteKeepsSafeWords is already defined in lib\/tests\/again\.nix; rename one of them/);
});

t.test('the runner reports a pair whose expression differs', async (t) => {
  const r = nixInstantiate(`(import ./lib).runTests { tests = { wrong = { expr = 1 + 1; expected = 3; }; }; }`);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  t.same(JSON.parse(r.stdout), [{ name: 'wrong', expected: 3, result: 2 }]);
});

const failures: Array<[string, string, RegExp]> = [
  [
    'an exception that sets a baseline key',
    `(import ./lib).mergeExceptions { exceptions.x = { reason = "r"; cap_drop = [ ]; }; }`,
    /security\.mergeExceptions: exception "x" sets "cap_drop"; an exception can only add tmpfs, devices, cap_add, runtime, volumes/,
  ],
  [
    'an exception that hides a baseline path',
    `(import ./lib).mergeExceptions { exceptions.x = { reason = "r"; volumes = [ "/h:/workspace" ]; }; }`,
    /security\.mergeExceptions: exception "x" volume "\/h:\/workspace" would hide the baseline path \/workspace/,
  ],
  [
    'two runtimes',
    `(import ./lib).mergeExceptions { exceptions = { a = { reason = "r"; runtime = "nvidia"; }; b = { reason = "r"; runtime = "runsc"; }; }; }`,
    /only one runtime can be used/,
  ],
  [
    'an unknown manifest key',
    `(import ./lib).loadManifest { text = "[observability]\\nmetric_port = 9100\\n"; }`,
    /schema-defaults\.applyDefaults: unknown key \/observability\/metric_port .*agentbox config validate/,
  ],
  [
    'a reserved programme name',
    `(import ./lib).programsFor { manifest = (import ./lib).loadManifest { text = "[programs.bootstrap]\\ncommand = \\"/bin/x\\"\\n"; }; }`,
    /programs\.programsFor: \[programs\.bootstrap\] uses a name reserved/,
  ],
  [
    'a feature without its exception',
    `(import ./lib).securityFor { manifest = (import ./lib).loadManifest { text = "[features]\\nplaywright = true\\n"; }; }`,
    /security\.securityFor: features\.playwright = true needs \[security\.exceptions\.playwright\]/,
  ],
  ['a relative runtime root', `(import ./lib).paths.runtimePaths { root = "box"; }`, /paths\.runtimePaths: root must be/],
  [
    'an environment value supervisord cannot carry',
    `(import ./lib).supervisordConfig { manifest = (import ./lib).loadManifest { text = "[programs.w]\\ncommand = \\"/bin/w\\"\\nenvironment = { Q = 'a\\"b' }\\n"; }; }`,
    /supervisord\.supervisordConfig: \[program:w\] Q contains a double quote/,
  ],
];

for (const [what, expr, message] of failures) {
  t.test(`a clear error for ${what}`, async (t) => {
    const r = nixInstantiate(expr);
    t.not(r.code, 0, 'evaluation fails');
    t.match(r.stderr, message);
  });
}
