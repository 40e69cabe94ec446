// The variables the Nix library gives the box (the image's Env, supervisord's and each
// programme's environment, the pods') are read by the runtime under the same names: a variable
// renamed on one side only, or set for nothing, fails here. The few set for people and tools
// rather than for a programme are listed with their reason.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers.js';
import { boxFacts } from '../../management-api/src/box-facts.js';

const VARIABLE = /\bAGENTBOX_[A-Z0-9_]*[A-Z0-9]\b/g;

/** Files under `dir` (recursive) whose names end with one of `exts` ('' for any). */
function filesUnder(dir: string, exts: string[]): string[] {
  return readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(rel, exts);
    return exts.some((x) => e.name.endsWith(x)) ? [rel] : [];
  });
}

/** The variable names in `files`, comment lines left out (`#` for Nix and shell, `//` and ` *` for TypeScript). */
function variablesIn(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    for (const line of readFileSync(path.join(repoRoot, file), 'utf8').split('\n')) {
      if (/^\s*(#|\/\/|\*|\/\*)/.test(line)) continue;
      for (const m of line.matchAll(VARIABLE)) names.add(m[0]);
    }
  }
  return names;
}

/** Set by the Nix library (lib/tests.nix's expected values aside) or by the facts file's image.env, which lib/image-config.nix copies. */
const setByNix = new Set([
  ...variablesIn(filesUnder('lib', ['.nix']).filter((f) => f !== 'lib/tests.nix')),
  ...Object.keys(boxFacts.image.env).filter((k) => k.startsWith('AGENTBOX_')),
]);
/** Read by the runtime: the API and the programmes (management-api/src) and the box's commands (config/bin). */
const readByRuntime = variablesIn([...filesUnder('management-api/src', ['.ts']).filter((f) => !f.includes('/generated/')), ...filesUnder('config/bin', [''])]);

/** Set for people and tools, not for a programme; each with its reason. */
const notForProgrammes: Readonly<Record<string, string>> = {
  AGENTBOX_APP_DIR: 'the image Env tells a shell in the box where the application is',
  AGENTBOX_IMAGE_NAME: 'the image Env names the image for `docker inspect` and a shell in the box; /v1/meta reports the image hash',
  AGENTBOX_IMAGE_TAG: 'as AGENTBOX_IMAGE_NAME',
  AGENTBOX_MANIFEST_SHA256: 'the image Env records the manifest the image was built for; the API hashes the manifest it loads',
  AGENTBOX_VERSION: 'the image Env records the Agentbox version; the API reads its package.json',
  AGENTBOX_POD_IP: 'Kubernetes expands it into AGENTBOX_ADVERTISE_URL (lib/kubernetes-advertise.nix); no programme reads it',
  AGENTBOX_POD_NAME: 'as AGENTBOX_POD_IP',
  AGENTBOX_POD_NAMESPACE: 'as AGENTBOX_POD_IP',
  AGENTBOX_REQUIRED_FOR_READINESS: "tells an operator's programme that it gates /ready; the seal listener reads the list (AGENTBOX_SEAL_PROGRAMS)",
};

t.test('the scans see both sides', async (t) => {
  for (const name of ['AGENTBOX_SUPERVISOR_URL', 'AGENTBOX_SEAL_PROGRAMS', 'AGENTBOX_ADVERTISE_URL', 'AGENTBOX_API_BIND']) {
    t.ok(setByNix.has(name), `${name} is set by Nix`);
    t.ok(readByRuntime.has(name), `${name} is read by the runtime`);
  }
});

t.test('every variable Nix gives the box is read by the runtime under that name, or is set for people and tools', async (t) => {
  const unread = [...setByNix].filter((v) => !readByRuntime.has(v) && !(v in notForProgrammes)).sort();
  t.same(unread, [], 'read it in management-api/src or config/bin, or correct its name on one side');
});

t.test('the list of variables for people and tools holds no stale entry', async (t) => {
  for (const name of Object.keys(notForProgrammes)) {
    t.ok(setByNix.has(name), `${name} is still set by Nix`);
    t.notOk(readByRuntime.has(name), `${name} is still read by no programme (else drop it from the list)`);
  }
});
