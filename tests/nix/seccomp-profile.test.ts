// The sandbox-namespaces seccomp profile: the vendored Docker default, unchanged, plus exactly the
// two rules bubblewrap needs; applied only where the exception applies, never on Kubernetes; and
// named by the compose file relative to the directory docker-compose runs in.
import t from 'tap';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { nixInstantiate, repoRoot } from './helpers.js';

const facts = boxFacts.sandboxNamespaces;
const vendoredText = readFileSync(path.join(repoRoot, facts.dockerDefaultProfile), 'utf8');
const vendored = JSON.parse(vendoredText) as { defaultAction: string; archMap: unknown[]; syscalls: unknown[] };

// The additions as isolation testing found them (unshare -U works with the first; bwrap needs the second).
const EXPECTED_ADDITIONS = [
  { names: ['clone', 'unshare'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: 268435456, valueTwo: 268435456, op: 'SCMP_CMP_MASKED_EQ' }] },
  { names: ['mount', 'umount2', 'pivot_root'], action: 'SCMP_ACT_ALLOW', args: [] },
];

/** Evaluate `expr` with `lib` bound to lib/ and `load` to the manifest loader; parsed JSON. */
function evalLib<T>(expr: string): T {
  const r = nixInstantiate(`let lib = import ./lib; load = text: lib.loadManifest { inherit text; }; in ${expr}`);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as T;
}

const WITH_EXCEPTION = '[security]\\naudit_acknowledged = true\\n\\n[security.exceptions.sandbox-namespaces]\\nreason = \\"bubblewrap per agent\\"\\n';

t.test('the vendored profile is the file its README names, byte for byte', async (t) => {
  const readme = readFileSync(path.join(repoRoot, 'lib/seccomp/README.md'), 'utf8');
  const sha = createHash('sha256').update(vendoredText).digest('hex');
  t.match(readme, sha, `lib/seccomp/README.md records sha256 ${sha}`);
  t.match(readme, /golang-github-docker-docker-dev/, 'and the Debian package it comes from');
  t.match(readFileSync(path.join(repoRoot, 'lib/seccomp/LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/, 'with the licence text beside it');
  // What the exception's reasoning relies on: the default refuses namespaces and mounts without CAP_SYS_ADMIN.
  const rules = vendored.syscalls as Array<{ names: string[]; includes?: { caps?: string[] } }>;
  const adminOnly = rules.find((r) => r.names.includes('unshare'));
  t.same(adminOnly?.includes?.caps, ['CAP_SYS_ADMIN'], 'unshare is allowed only with CAP_SYS_ADMIN in the default');
  t.ok(adminOnly?.names.includes('mount') && !rules.some((r) => r.names.includes('pivot_root')), 'mount likewise; pivot_root never');
});

t.test('the profile is the default plus exactly the two additions', async (t) => {
  const profile = evalLib<typeof vendored>('builtins.fromJSON (import ./lib/seccomp.nix).profileText');
  t.equal(profile.defaultAction, vendored.defaultAction, 'defaultAction unchanged');
  t.same(profile.archMap, vendored.archMap, 'archMap unchanged');
  t.same(Object.keys(profile).sort(), Object.keys(vendored).sort(), 'no other top-level key');
  t.same(profile.syscalls.slice(0, vendored.syscalls.length), vendored.syscalls, 'every default rule, in order');
  t.same(profile.syscalls.slice(vendored.syscalls.length), EXPECTED_ADDITIONS, 'then exactly the two additions');
  const golden = readFileSync(path.join(repoRoot, 'tests/golden/all-features', facts.profileFile), 'utf8');
  t.same(JSON.parse(golden), profile, 'the golden file is this profile');
});

t.test('securityFor applies it only when agents use namespaces, and never on Kubernetes', async (t) => {
  type Sec = { security_opt: string[]; seccompProfile: { file: string } | null; exceptions: Record<string, string> };
  const on = evalLib<Sec>(`lib.securityFor { manifest = load "${WITH_EXCEPTION}"; }`);
  t.same(on.security_opt, ['no-new-privileges:true', `seccomp:./${facts.profileFile}`], 'no-new-privileges kept, the profile added');
  t.equal(on.seccompProfile?.file, facts.profileFile, 'the file render writes');
  t.equal(on.exceptions['sandbox-namespaces'], 'bubblewrap per agent', 'the reason for the audit label');
  for (const [what, extra] of [
    ['namespaces = "off"', '\\n[sandbox]\\nnamespaces = \\"off\\"\\n'],
    ['the sandbox off', '\\n[sandbox]\\nenabled = false\\n'],
  ] as const) {
    const off = evalLib<Sec>(`lib.securityFor { manifest = load "${WITH_EXCEPTION}${extra}"; }`);
    t.same([off.security_opt, off.seccompProfile], [['no-new-privileges:true'], null], `not applied with ${what}`);
  }
  const k8s = evalLib<Sec>(`lib.securityFor { manifest = load "${WITH_EXCEPTION}"; kubernetes = true; }`);
  t.same([k8s.security_opt, k8s.seccompProfile, k8s.exceptions], [['no-new-privileges:true'], null, {}], 'not applied for a pod');
  const pod = evalLib<{ spec: { securityContext: { seccompProfile: { type: string } } }; metadata: { annotations: Record<string, string> } }>(
    `(import ./lib/kubernetes-pod.nix).podTemplate { manifest = load "${WITH_EXCEPTION}"; image = "agentbox/x:1"; persistent = true; }`,
  );
  t.equal(pod.spec.securityContext.seccompProfile.type, 'RuntimeDefault', 'the pod renders (no crash) with RuntimeDefault');
  t.notOk('dev.agentbox.exception.sandbox-namespaces' in pod.metadata.annotations, 'and claims no exception it does not apply');
});

t.test('docker-compose reads the profile relative to the directory it runs in', async (t) => {
  const dir = path.join(repoRoot, 'tests/golden/all-features');
  const here = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], { cwd: dir, encoding: 'utf8' });
  t.equal(here.status, 0, 'in the rendered directory it is read', { stderr: here.stderr });
  const elsewhere = spawnSync('docker-compose', ['-f', path.join(dir, 'docker-compose.yml'), 'config', '-q'], { cwd: repoRoot, encoding: 'utf8' });
  t.not(elsewhere.status, 0, 'from another directory it is not found');
  t.match(elsewhere.stderr, /seccomp profile/, 'and docker-compose says so');
});
