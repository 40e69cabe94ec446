// `agentbox doctor`: checks this host for running a box — prerequisites, ports, manifest, and the
// state directory's permissions — and prints the fix for each failure.
import { parseArgs } from 'node:util';
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadManifestFile } from '../../management-api/src/manifest/load-manifest.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { localModePrereqs, type PrereqCheck } from './host-prereqs.js';
import { ruleContextFrom } from './rule-context.js';
import { boxPorts, portInUseLine } from '../../management-api/src/box-ports.js';
import { portFree, setsKey } from './port-check.js';
import { parseToml } from '../../management-api/src/manifest/parse-toml.js';
import { boxAt } from './box-registry.js';
import { workspaceFsCheck } from './workspace-fs-check.js';

export const usage = `Usage: agentbox doctor [--manifest FILE] [--root DIR] [--json]

Check that this host can run the box: Node.js, nix-instantiate, supervisord; the manifest is valid;
every port the box binds is free (API, metrics, egress proxy, relay, features' and [programs]
ports, after the AGENTBOX_*_PORT overrides; a taken one is named with its programme, manifest key
and override); the state directory and secrets have safe permissions; the workspaces' filesystem
(a warning, not a failure, for ext4 without a journal: forks and restores are slow there).
Every failed check prints the command or step that fixes it.

Options:
  --manifest FILE  the manifest (default ./agentbox.toml)
  --root DIR       the box's local root (default $AGENTBOX_ROOT or ./.agentbox)
  --json           print {ok, checks: [{name, ok, detail, fix?, warn?}]}
  -h, --help       show this help

Exit codes: 0 every check passed (warnings included), 1 a check failed.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { manifest: { type: 'string' }, root: { type: 'string' }, json: { type: 'boolean' } } });
  const checks: PrereqCheck[] = [...localModePrereqs()];
  const manifestFile = values.manifest ?? 'agentbox.toml';
  const loaded = await loadManifestFile(manifestFile, ruleContextFrom(undefined));
  const firstError = loaded.diagnostics.find((d) => d.severity === 'error');
  checks.push(
    loaded.exitCode === 0
      ? { name: 'manifest', ok: true, detail: `${manifestFile} is valid (${loaded.warningCount} warnings)` }
      : {
          name: 'manifest',
          ok: false,
          detail: `${manifestFile}: ${firstError?.message ?? 'invalid'}`,
          fix: `npx agentbox config validate ${manifestFile}${loaded.exitCode === 2 ? ' (or create one: npx agentbox init)' : ''}`,
        },
  );
  const m = loaded.manifest;
  const root = path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox');
  const running = boxAt(root);
  if (running)
    checks.push({ name: 'box', ok: true, detail: `a box already runs under ${root} (supervisord pid ${running.pid}); its own ports are not checked` });
  if (m && !running) {
    // Every port the box binds, as agentbox up checks them; 0 is a free port chosen at start, and
    // a taken default the manifest does not set moves to a free one (port-check.ts).
    const raw = parseToml(await readFile(manifestFile, 'utf8').catch(() => ''));
    for (const p of boxPorts(m, process.env)) {
      const name = `${p.name.toLowerCase()} port`;
      if (p.port === 0) {
        checks.push({ name, ok: true, detail: `${p.envVar ?? p.key} = 0: a free port is chosen at start` });
        continue;
      }
      const free = await portFree(p.host, p.port);
      const floats = p.envVar !== undefined && process.env[p.envVar] === undefined && !(raw.ok && setsKey(raw.value, p.key));
      if (!free && floats) {
        checks.push({
          name,
          ok: true,
          detail: `${p.host}:${p.port} is in use; ${manifestFile} leaves ${p.key} at its default, so agentbox up chooses a free port (set ${p.key} or ${p.envVar} to require one)`,
        });
        continue;
      }
      checks.push(
        free
          ? { name, ok: true, detail: `${p.host}:${p.port} is free (${p.key}${p.envVar ? `, override ${p.envVar}` : ''})` }
          : {
              name,
              ok: false,
              detail: portInUseLine(p),
              fix: p.envVar
                ? `${p.envVar}=0 agentbox up --local (any free port), or set ${p.key} in ${manifestFile}`
                : `set ${p.key} in ${manifestFile} to a free port`,
            },
      );
    }
  }
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  checks.push(...(await permissionChecks(paths.secretsDir, [paths.apiKeyFile, paths.identityKeyFile])));
  checks.push(workspaceFsCheck(paths.workspaceDir));
  const ok = checks.every((c) => c.ok);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ok, checks }, null, 2)}\n`);
  } else {
    for (const c of checks) {
      process.stdout.write(`${!c.ok ? 'FAIL' : c.warn ? 'warn' : 'ok  '}  ${c.name}: ${c.detail}\n`);
      if ((!c.ok || c.warn) && c.fix) process.stdout.write(`      fix: ${c.fix}\n`);
    }
    const warnings = checks.filter((c) => c.ok && c.warn).length;
    const advice = warnings === 0 ? '' : `; ${warnings} warning${warnings === 1 ? '' : 's'} above`;
    process.stdout.write(ok ? `everything needed is in place${advice}\n` : 'some checks failed; apply the fixes above\n');
  }
  return ok ? 0 : 1;
}

/** The secrets directory must be 0700 and each secret file 0600 (absent is fine: created at boot). */
async function permissionChecks(dir: string, files: string[]): Promise<PrereqCheck[]> {
  const out: PrereqCheck[] = [];
  for (const [p, want] of [[dir, 0o700] as const, ...files.map((f) => [f, 0o600] as const)]) {
    const st = await lstat(p).catch(() => undefined);
    if (!st) {
      out.push({ name: `permissions ${path.basename(p)}`, ok: true, detail: `${p} does not exist yet (created at first start)` });
      continue;
    }
    const mode = st.mode & 0o777;
    const ok = (mode & ~want) === 0 && !st.isSymbolicLink();
    out.push(
      ok
        ? { name: `permissions ${path.basename(p)}`, ok: true, detail: `${p} is ${mode.toString(8)}` }
        : {
            name: `permissions ${path.basename(p)}`,
            ok: false,
            detail: `${p} is ${st.isSymbolicLink() ? 'a symlink' : mode.toString(8)}, readable by others`,
            fix: `chmod ${want.toString(8)} ${p}`,
          },
    );
  }
  return out;
}
