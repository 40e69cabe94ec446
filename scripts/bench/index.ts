// `npm run bench`: runs every benchmark (or those named with --only), each in a process of its own, and prints their reports.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** A suite's report: text, or text plus the figures as JSON (printed with --json). */
type Report = string | { text: string; json: Record<string, unknown> };

const suites: Record<string, () => Promise<Report>> = {
  manifest: async () => (await import('./manifest-bench.js')).runManifestBench(),
  boot: async () => (await import('./boot-bench.js')).runBootBench(),
  container: async () => (await import('./container-bench.js')).runContainerBench(),
  beads: async () => (await import('./beads-bench.js')).runBeadsBench(),
  events: async () => (await import('./events-bench.js')).runEventsBench(),
  tlog: async () => (await import('./tlog-bench.js')).runTlogBench(),
  api: async () => (await import('./api-bench.js')).runApiBench(),
  'next-tick': async () => (await import('./next-tick-bench.js')).runNextTickBench(),
  memory: async () => (await import('./memory-bench.js')).runMemoryBench(),
  auth: async () => (await import('./auth-bench.js')).runAuthBench(),
  mesh: async () => (await import('./mesh-bench.js')).runMeshBench(),
  limits: async () => (await import('./limits-bench.js')).runLimitsBench(),
  'disk-walk': async () => (await import('./disk-walk-bench.js')).runDiskWalkBench(),
  egress: async () => (await import('./egress-bench.js')).runEgressBench(),
  'egress-transparent': async () => (await import('./egress-transparent-bench.js')).runEgressTransparentBench(),
  sandbox: async () => (await import('./sandbox-bench.js')).runSandboxBench(),
  boxes: async () => (await import('./boxes-bench.js')).runBoxesBench(),
  dashboard: async () => (await import('./dashboard-bench.js')).runDashboardBench(),
  policy: async () => (await import('./policy-bench.js')).runPolicyBench(),
  terminal: async () => (await import('./terminal-bench.js')).runTerminalBench(),
  'tty-throughput': async () => (await import('./tty-throughput-bench.js')).runTtyThroughputBench(),
  'tty-idle': async () => (await import('./tty-idle-bench.js')).runTtyIdleBench(),
  client: async () => (await import('./client-bench.js')).runClientBench(),
  mcp: async () => (await import('./mcp-bench.js')).runMcpBench(),
  files: async () => (await import('./files-bench.js')).runFilesBench(),
  tree: async () => (await import('./tree-bench.js')).runTreeBench(),
  snapshot: async () => (await import('./snapshot-bench.js')).runSnapshotBench(),
  backup: async () => (await import('./backup-bench.js')).runBackupBench(),
};

const { values } = parseArgs({ options: { only: { type: 'string', multiple: true }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  process.stdout.write(
    `Usage: npm run bench [-- --only NAME ... [--json]]\n\n--json prints one JSON object per suite: {suite, text, figures?}\n\nSuites: ${Object.keys(suites).join(', ')}\n`,
  );
} else {
  const names = values.only ?? Object.keys(suites);
  const unknown = names.filter((name) => !suites[name]);
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown suite${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; suites: ${Object.keys(suites).join(', ')}\n`,
    );
    process.exitCode = 2;
  } else if (names.length === 1) {
    const name = names[0]!;
    process.stderr.write(`running ${name} benchmark…\n`);
    const report = await suites[name]!();
    const text = typeof report === 'string' ? report : report.text;
    if (values.json) process.stdout.write(`${JSON.stringify({ suite: name, text, ...(typeof report === 'string' ? {} : { figures: report.json }) })}\n`);
    else process.stdout.write(`${text}\n\n`);
  } else {
    // Each suite in a process of its own: what one leaves behind (the memory suite's 2.4 GB of
    // vectors) made every later process spawn a fork of a large process, about 95 ms instead of
    // 3, which drowned the spawn-based suites' figures (sandbox, mcp) in one run of them all.
    const failed: string[] = [];
    for (const name of names) {
      const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--only', name, ...(values.json ? ['--json'] : [])], { stdio: 'inherit' });
      if (run.status !== 0) failed.push(`${name} (${run.signal ?? `exit ${run.status}`})`);
    }
    if (failed.length > 0) {
      process.stderr.write(`failed: ${failed.join(', ')}\n`);
      process.exitCode = 1;
    }
  }
}
