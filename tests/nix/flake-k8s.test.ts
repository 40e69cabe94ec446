// The flake's k8s output is gated for its target: a manifest with no Kubernetes form (E048, E049)
// fails its build while the compose output still builds, and the validator in the build runs with
// --target kubernetes (its warnings, such as W020, in the build log). Stub inputs, nothing fetched.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { currentSystem, nixFlake, repoRoot } from './helpers.js';
import { flakeCopy, stubApp } from './flake-copy.js';

const rule = (id: string, file: string) => readFileSync(path.join(repoRoot, 'tests/fixtures/rules', id, file), 'utf8');
const k8s = `.#packages.${currentSystem}.k8s`;
const compose = `.#packages.${currentSystem}.compose`;

t.test('a manifest with no Kubernetes form fails the k8s output, not the compose one', async (t) => {
  const env = { ...process.env, AGENTBOX_STUB_APP: stubApp() };
  for (const id of ['E048', 'E049']) {
    const flake = flakeCopy(rule(id, 'bad.toml'));
    const r = nixFlake(['build', '--impure', '--no-link', k8s], { env, flake });
    t.not(r.code, 0, `${id}: packages.k8s fails`);
    t.match(r.stderr, new RegExp(`${id} exception-(devices|volume)-without-kubernetes-form at /security/exceptions/`), `${id}: the rule and key are named`);
    const c = nixFlake(['build', '--impure', '--no-link', compose], { env, flake });
    t.equal(c.code, 0, `${id}: packages.compose builds (the rule is about Kubernetes only)`, { stderr: c.stderr });
  }
  const good = nixFlake(['build', '--impure', '--no-link', k8s], { env, flake: flakeCopy(rule('E048', 'good.toml')) });
  t.equal(good.code, 0, 'E048 good.toml (a GPU through its device plugin): packages.k8s builds', { stderr: good.stderr });
});

t.test('the validator in the k8s build runs for the kubernetes target', async (t) => {
  const env = { ...process.env, AGENTBOX_STUB_APP: stubApp() };
  const flake = flakeCopy(rule('W020', 'bad.toml'));
  const r = nixFlake(['build', '--impure', '--no-link', '--print-build-logs', k8s], { env, flake });
  t.equal(r.code, 0, 'a warning does not fail the build', { stderr: r.stderr });
  t.match(r.stderr, /warning W020 exception-volume-is-host-path/, 'the target rule ran in the build');
  t.match(r.stderr, /valid for kubernetes/);
});
