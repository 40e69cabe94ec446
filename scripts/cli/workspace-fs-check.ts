// agentbox doctor's check of the workspaces' filesystem: passes always, with a warning on ext4 without a journal (workspace-fs.ts).
import { describeWorkspaceFs } from '../../management-api/src/workspace-files/workspace-fs.js';
import type { PrereqCheck } from './host-prereqs.js';

export function workspaceFsCheck(workspaceDir: string, sources: { mountinfo?: string; sysRoot?: string } = {}): PrereqCheck {
  const found = describeWorkspaceFs(workspaceDir, sources);
  return { name: 'workspace filesystem', ok: true, detail: found.detail, ...(found.warn ? { warn: true as const, fix: found.fix } : {}) };
}
