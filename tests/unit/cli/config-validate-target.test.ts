// `agentbox config validate --target`, run as the installed bin: the rules about what has no
// Kubernetes form run for the Kubernetes targets only, with the same diagnostics as
// `agentbox render --target`; the target is in the --json report and in --help.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, runAgentbox } from '../../helpers/cli.js';

const rulesDir = path.join(repoRoot, 'tests/fixtures/rules');
/** Rule fixtures whose context names a Kubernetes target: the target rules. */
const targetRules = readdirSync(rulesDir).filter((id) => {
  try {
    return (JSON.parse(readFileSync(path.join(rulesDir, id, 'context.json'), 'utf8')) as { target?: string }).target !== undefined;
  } catch {
    return false;
  }
});

interface Report {
  file: string;
  target: string;
  exitCode: number;
  diagnostics: Array<{ id: string; pointer: string; message: string }>;
}
const validate = (file: string, ...args: string[]) => {
  const r = runAgentbox(['config', 'validate', '--json', '--target-arch', 'x86_64', ...args, file]);
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
};

t.test('each target rule fires for kubernetes and agent-sandbox, never for compose', async (t) => {
  t.same(targetRules.sort(), ['E048', 'E049', 'W019', 'W020'], 'the rules whose fixtures name a target');
  for (const id of targetRules) {
    const bad = path.join(rulesDir, id, 'bad.toml');
    const good = path.join(rulesDir, id, 'good.toml');
    const status = id.startsWith('E') ? 1 : 0;
    for (const target of ['kubernetes', 'agent-sandbox']) {
      const { code, report } = validate(bad, '--target', target);
      t.equal(code, status, `${id} bad.toml --target ${target}: exit ${status}`);
      t.equal(report.target, target);
      t.ok(
        report.diagnostics.some((d) => d.id === id && d.message.includes(`target ${target}`)),
        `${id} bad.toml --target ${target}: reported, naming the target`,
      );
      t.notOk(
        validate(good, '--target', target).report.diagnostics.some((d) => d.id === id),
        `${id} good.toml --target ${target}: clean`,
      );
    }
    for (const args of [['--target', 'compose'], []]) {
      const { code, report } = validate(bad, ...args);
      t.equal(code, 0, `${id} bad.toml ${args.join(' ') || '(no --target)'}: valid for compose`);
      t.notOk(
        report.diagnostics.some((d) => d.id === id),
        `${id}: not reported for compose`,
      );
    }
  }
});

t.test('validate --target gives the diagnostics render --target gives', async (t) => {
  for (const id of ['E048', 'W020']) {
    const bad = path.join(rulesDir, id, 'bad.toml');
    const v = validate(bad, '--target', 'kubernetes');
    const r = runAgentbox([
      'render',
      '--json',
      '--target-arch',
      'x86_64',
      '--target',
      'kubernetes',
      '--check',
      '--manifest',
      bad,
      '--out',
      path.join(rulesDir, id),
    ]);
    const rendered = JSON.parse(r.stdout) as { diagnostics: Report['diagnostics'] };
    t.same(v.report.diagnostics, rendered.diagnostics, `${id}: the same findings`);
  }
});

t.test('text output, usage and help', async (t) => {
  const bad = path.join(rulesDir, 'E049', 'bad.toml');
  const text = runAgentbox(['config', 'validate', '--target', 'kubernetes', bad]);
  t.equal(text.code, 1);
  t.match(text.stderr, /error E049 exception-volume-without-kubernetes-form/);
  t.match(text.stderr, /bad\.toml: invalid for kubernetes \(1 error, 0 warnings\)/);
  const wrong = runAgentbox(['config', 'validate', '--target', 'nomad', bad]);
  t.equal(wrong.code, 2);
  t.match(wrong.stderr, /--target must be one of compose, kubernetes, agent-sandbox, not "nomad"/);
  const help = runAgentbox(['config', 'validate', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--target TARGET\s+compose, kubernetes, agent-sandbox \(default compose\)/);
  t.match(help.stdout, /E048, E049, W019, W020/);
});
