// The rules on [agents] packages and npm (E058, E059, E060, W023) and the grammar they share with the image builders.
import t from 'tap';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { attributePathProblem, npmSpecProblem, splitNpmSpec } from '../../../management-api/src/grammar/agent-packages.js';

const ids = async (source: string): Promise<string[]> =>
  (await loadManifestSource(source, { targetArch: 'x86_64', env: {} })).diagnostics.map((d) => `${d.id}@${d.pointer}`);
const list = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;

t.test('npm specs: one exact version of a registry package', async (t) => {
  for (const ok of ['@anthropic-ai/claude-code@2.1.332', 'left-pad@1.3.0', 'x@1.0.0-beta.2', 'x@1.0.0+build.5']) t.equal(npmSpecProblem(ok), undefined, ok);
  for (const [bad, why] of [
    ['@openai/codex', /no version/],
    ['@openai/codex@latest', /not an exact version/],
    ['left-pad@^1.3.0', /not an exact version/],
    ['left-pad@1.3', /not an exact version/],
    ['left-pad@>=1.0.0 <2', /not an exact version/],
    ['https://example.com/x.tgz', /not an npm package name/],
    ['github:user/repo', /not an npm package name/],
    ['Left-Pad@1.3.0', /not an npm package name/],
  ] as const)
    t.match(npmSpecProblem(bad), why, bad);
  t.same(splitNpmSpec('@s/n@1.2.3'), { name: '@s/n', version: '1.2.3' });
  t.same(splitNpmSpec('@s/n'), { name: '@s/n', version: '' });
});

t.test('attribute paths: dotted Nix names', async (t) => {
  for (const ok of ['git', 'python3Packages.pytest', 'nodePackages_latest.typescript', "a'b", 'gtk-doc']) t.equal(attributePathProblem(ok), undefined, ok);
  t.match(attributePathProblem('pkgs.git'), /pkgs\. prefix/);
  t.match(attributePathProblem('python3Packages..pytest'), /empty segment/);
  t.match(attributePathProblem('git.'), /empty segment/);
  t.match(attributePathProblem('7zip'), /not a Nix attribute name/);
  t.match(attributePathProblem('nodePackages/@x'), /not a Nix attribute name/);
});

t.test('the rules point at the entry', async (t) => {
  t.same(await ids(`[agents]\nnpm = ${list(['@openai/codex@0.171.0', 'x@latest'])}\n`), ['E058@/agents/npm/1']);
  t.same(await ids(`[agents]\npackages = ${list(['ripgrep', 'pkgs.jq'])}\n`), ['E059@/agents/packages/1']);
  t.same(await ids(`[agents]\npackages = ${list(['ripgrep', 'jq', 'ripgrep'])}\n`), ['E060@/agents/packages/2']);
  t.same(await ids(`[agents]\nnpm = ${list(['a@1.0.0', 'b@1.0.0', 'a@2.0.0'])}\n`), ['E060@/agents/npm/2'], 'one version per package');
  t.same(await ids(`[agents]\npackages = ${list(['python3', 'gnused', 'nodejs', 'ripgrep'])}\n`), [
    'W023@/agents/packages/0',
    'W023@/agents/packages/1',
    'W023@/agents/packages/2',
  ]);
  t.same(await ids(`[agents]\npackages = ${list(['ripgrep'])}\nnpm = ${list(['@openai/codex@0.171.0'])}\n`), [], 'a clean list');
});
