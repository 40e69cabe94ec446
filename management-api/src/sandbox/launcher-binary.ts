// Finds the compiled sandbox launcher of this installation and asks it what the kernel can enforce.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { boxFacts } from '../box-facts.js';

/** What the kernel and the launcher can enforce (the capability probe, shown by /health). */
export interface SandboxCapability {
  /** The launcher binary probed. */
  launcher: string;
  /** The kernel's Landlock ABI (0: none or the launcher could not run). */
  landlockAbi: number;
  /** The ABI the policy needs. */
  requiredAbi: number;
  /** True when the whole policy can be enforced. */
  enforceable: boolean;
  /** What is missing, in words, when not enforceable. */
  missing?: string;
}

/** The launcher's refusal code: the kernel cannot enforce the policy (see agentbox-sandbox.c). */
export const EXIT_KERNEL_CANNOT_ENFORCE = 121;
/** The Landlock ABI the launcher's policy needs at least: TCP connect rules (4), signal and abstract socket scoping (6). */
export const MIN_LANDLOCK_ABI = 6;

/** The installation's root: the nearest directory above this module holding the agentbox package.json. */
function installationRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'agentbox') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('sandbox: cannot find the agentbox installation (no package.json named "agentbox" above this module)');
    dir = parent;
  }
}

/** The launcher of this installation: `image.sandboxLauncher.binary` of the facts file under its root. */
export function installedLauncher(): string {
  return path.join(installationRoot(), boxFacts.image.sandboxLauncher.binary);
}

/** Run `launcher --probe`: never throws; a launcher that is missing or broken is reported as not enforceable. */
export function probeLauncher(launcher: string, requiredAbi = MIN_LANDLOCK_ABI): Promise<SandboxCapability> {
  const base = { launcher, requiredAbi: Math.max(requiredAbi, MIN_LANDLOCK_ABI) };
  return new Promise((resolve) => {
    execFile(launcher, ['--probe', '--require-abi', String(base.requiredAbi)], { timeout: 5_000, env: {} }, (err, stdout) => {
      let abi = 0;
      try {
        abi = Number((JSON.parse(stdout) as { abi?: unknown }).abi) || 0;
      } catch {
        // Not the launcher's output: reported below with the exec error.
      }
      if (!err) return resolve({ ...base, landlockAbi: abi, enforceable: true });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') {
        return resolve({
          ...base,
          landlockAbi: 0,
          enforceable: false,
          missing: `the sandbox launcher ${launcher} is missing or not executable (${code}): build it with npm run build (needs a C compiler: apt-get install gcc libc6-dev), npm start or npm test`,
        });
      }
      if ((err as { code?: unknown }).code === EXIT_KERNEL_CANNOT_ENFORCE)
        resolve({ ...base, landlockAbi: abi, enforceable: false, missing: kernelMissing(abi, base.requiredAbi) });
      else
        resolve({ ...base, landlockAbi: abi, enforceable: false, missing: `the sandbox launcher ${launcher} failed its probe: ${err.message.split('\n')[0]}` });
    });
  });
}

/** What the kernel lacks, in the launcher's words. */
export function kernelMissing(abi: number, required: number): string {
  if (abi === 0) return 'Landlock is unavailable on this kernel (not built in, or missing from the lsm= boot list)';
  if (abi < 4) return `Landlock ABI 4 (TCP connect rules) is missing: the kernel has ABI ${abi}, the sandbox needs ${required}`;
  if (abi < 6) return `Landlock ABI 6 (signal and abstract unix socket scoping) is missing: the kernel has ABI ${abi}, the sandbox needs ${required}`;
  return `Landlock ABI ${required} is required, the kernel has ABI ${abi}`;
}
