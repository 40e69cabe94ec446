// E032: commands are resolved in the immutable image; a relative name depends on PATH and working directory at run time.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { programEntries } from './helpers/programs.js';

/** Programme commands and the external orchestrator command are absolute paths. */
export const commandNotAbsolute: Rule = {
  id: 'E032',
  alias: 'command-not-absolute',
  severity: 'error',
  summary: 'programme and orchestrator commands must be absolute paths',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, p] of programEntries(m)) {
      if (!p.command.startsWith('/')) {
        out.push(
          finding(
            ['programs', name, 'command'],
            `programs.${name}.command = "${p.command}" is not an absolute path`,
            `write the full path, for example command = "/usr/bin/env" with args = ["${p.command.split(/\s+/)[0]}", …]`,
          ),
        );
      }
    }
    const orch = m.integrations.orchestrator.command;
    if (orch !== '' && !orch.startsWith('/')) {
      out.push(
        finding(
          ['integrations', 'orchestrator', 'command'],
          `integrations.orchestrator.command = "${orch}" is not an absolute path`,
          `write the full path of the orchestrator, for example command = "/usr/local/bin/${orch.split(/\s+/)[0]}"`,
        ),
      );
    }
    return out;
  },
};
