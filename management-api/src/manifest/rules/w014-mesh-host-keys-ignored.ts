// W014: the registry and member keys are read only by a mesh host; on another box they suggest a forgotten mode.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';

/** `mesh.allowed_pubkeys` and the registry keys are set only with `mesh.mode = "host"`. */
export const meshHostKeysIgnored: Rule = {
  id: 'W014',
  alias: 'mesh-host-keys-ignored',
  severity: 'warning',
  summary: 'mesh.allowed_pubkeys and the mesh.registry* keys are ignored unless mesh.mode = "host"',
  check(m) {
    const mesh = m.mesh;
    if (mesh.mode === 'host') return [];
    const set: Array<[string, boolean]> = [
      ['allowed_pubkeys', mesh.allowed_pubkeys.length > 0],
      ['registry', mesh.registry !== 'sqlite'],
      ['registry_connection_env', mesh.registry_connection_env !== ''],
      ['registry_connection_file', mesh.registry_connection_file !== ''],
    ];
    const out: RuleFinding[] = [];
    for (const [key, isSet] of set) {
      if (isSet)
        out.push(
          finding(
            ['mesh', key],
            `mesh.${key} is set but mesh.mode = "${mesh.mode}" does not read it (only a mesh host does)`,
            `set mesh.mode = "host" to run the registry members join, or delete mesh.${key}`,
          ),
        );
    }
    return out;
  },
};
