// The filesystem under the box's workspaces, and a warning when it is ext4 without a journal, where forks and restores of large trees are slow: for agentbox doctor and the box's start.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The mount a path is on, from /proc/self/mountinfo. */
export interface MountOf {
  mountPoint: string;
  /** The device's `major:minor`. */
  device: string;
  fsType: string;
  source: string;
}

/** mountinfo escapes space, tab, newline and backslash in paths as three octal digits. */
const unescapeMount = (field: string): string => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/** `dir` (absolute, links resolved) is at or below `mountPoint`. */
const isUnder = (dir: string, mountPoint: string): boolean => mountPoint === '/' || dir === mountPoint || dir.startsWith(`${mountPoint}/`);

/**
 * The mount `dir` lives on: the deepest mount point above it, and of several at that point the
 * last listed (a later mount hides an earlier one). Undefined when mountinfo lists none.
 */
export function mountOf(dir: string, mountinfo: string): MountOf | undefined {
  let found: MountOf | undefined;
  for (const line of mountinfo.split('\n')) {
    // "id parent major:minor root mountpoint options [optional fields…] - fstype source superoptions"
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const fields = left.split(' ');
    const [fsType, source] = right.split(' ');
    const device = fields[2];
    const mountPoint = fields[4] === undefined ? undefined : unescapeMount(fields[4]);
    if (!device || !mountPoint || !fsType || !isUnder(dir, mountPoint)) continue;
    if (found && mountPoint.length < found.mountPoint.length) continue;
    found = { mountPoint, device, fsType, source: source === undefined ? '' : unescapeMount(source) };
  }
  return found;
}

/**
 * Whether the ext4 filesystem on block device `device` (`major:minor`) has a journal: its sysfs
 * `journal_task` names the journal's thread, or `<none>`. Undefined when sysfs does not say (not
 * mounted, another kernel's layout).
 */
export function ext4HasJournal(device: string, sysRoot = '/sys'): boolean | undefined {
  try {
    // /sys/fs/ext4/<name> is named after the block device, as /sys/dev/block/<major:minor> links to it.
    const name = path.basename(realpathSync(path.join(sysRoot, 'dev/block', device)));
    return readFileSync(path.join(sysRoot, 'fs/ext4', name, 'journal_task'), 'utf8').trim() !== '<none>';
  } catch {
    return undefined;
  }
}

/** `dir`, or its nearest ancestor that exists, with links resolved: where the box will make it. */
function nearestExisting(dir: string): string {
  let at = path.resolve(dir);
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return realpathSync(at);
}

/** What the workspace filesystem check found: a line to show, and when `warn`, the fix. */
export interface WorkspaceFs {
  detail: string;
  warn: boolean;
  fix?: string;
  /** The device of an ext4 without a journal. */
  device?: string;
}

/**
 * The workspace filesystem check. A filesystem without a journal works, so this only warns: right
 * after many files were deleted ext4 makes new ones slowly there (it steps over every inode freed
 * in the last minute or so), so forks and restores of large trees can take several times as long
 * (docs/user/files-and-snapshots.md, "Forks"). It never throws: whatever it cannot read, it says
 * it did not check (the box starts with it).
 */
export function describeWorkspaceFs(workspaceDir: string, sources: { mountinfo?: string; sysRoot?: string } = {}): WorkspaceFs {
  try {
    return describe(workspaceDir, sources);
  } catch (err) {
    return { warn: false, detail: `${workspaceDir}: the filesystem is not checked (${(err as Error).message})` };
  }
}

function describe(workspaceDir: string, sources: { mountinfo?: string; sysRoot?: string }): WorkspaceFs {
  const dir = nearestExisting(workspaceDir);
  let mountinfo = sources.mountinfo;
  if (mountinfo === undefined) {
    try {
      mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return { warn: false, detail: `${workspaceDir}: /proc/self/mountinfo cannot be read, the filesystem is not checked` };
    }
  }
  const mount = mountOf(dir, mountinfo);
  if (!mount) return { warn: false, detail: `${workspaceDir}: no mount of ${dir} is listed, the filesystem is not checked` };
  const on = `${workspaceDir} is on ${mount.fsType} (${mount.source || mount.device}, mounted at ${mount.mountPoint})`;
  if (mount.fsType === 'btrfs') return { warn: false, detail: `${on}: forks and restores of agents' snapshots are clones that share their bytes` };
  if (mount.fsType !== 'ext4') return { warn: false, detail: on };
  const journal = ext4HasJournal(mount.device, sources.sysRoot);
  if (journal === undefined) return { warn: false, detail: `${on}; whether it has a journal cannot be read from sysfs` };
  if (journal) return { warn: false, detail: `${on}, with a journal; forks copy every byte (on btrfs they would be clones)` };
  return {
    warn: true,
    device: mount.source || mount.device,
    detail: `${on} without a journal: right after many files are deleted, making new ones is slow, so forks and restores of large workspaces can take several times as long`,
    fix: `keep the box's root on a journaled filesystem, or add a journal to this one while it is unmounted: tune2fs -O has_journal ${mount.source || 'DEVICE'}`,
  };
}
