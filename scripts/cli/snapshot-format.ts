// What the snapshot commands share: the record the API answers with, sizes as people read them, and the list as a table.

/** A snapshot as /v1/snapshots lists it. */
export interface SnapshotRecord {
  id: string;
  label?: string;
  createdAt: string;
  agent: { id: string; name: string; cwd: string };
  stats: {
    files: number;
    dirs?: number;
    symlinks?: number;
    skipped?: number;
    bytes: number;
    storedBytes: number;
    addedBytes: number;
    reusedFiles: number;
    changed: number;
    durationMs: number;
  };
  /** The first files that kept changing while read. */
  changedPaths?: string[];
  sharing?: { storedBytes: number; sharedBytes: number; exclusiveBytes: number; chargedBytes: number };
  /** It keeps a clone (btrfs): forks and restores of it are made in constant time. Absent from boxes before it was answered. */
  clone?: boolean;
  /** Copies built ahead for forks (GET of one, while some are wanted: agentbox snapshot warm). */
  warm?: { wanted: number; ready: number; building: boolean; error?: string };
}

/** 1536 → "1.5 KiB". */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** One line about a snapshot just made. */
export function madeLine(s: SnapshotRecord): string {
  const { files, bytes, addedBytes, reusedFiles, changed, durationMs } = s.stats;
  const notes = [`${reusedFiles} unchanged`, ...(changed ? [`${changed} changing while read`] : [])].join(', ');
  const clone = s.clone ? ', kept a clone: forks of it are clones' : '';
  return `${s.id}  ${files} files, ${formatBytes(bytes)}, ${formatBytes(addedBytes)} added (${notes}) in ${durationMs} ms${clone}`;
}

/** The table of `agentbox snapshot ls`. */
export function formatSnapshots(list: readonly SnapshotRecord[]): string {
  const rows = list.map((s) => [
    s.id,
    s.agent.name,
    s.agent.id,
    s.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    String(s.stats.files),
    formatBytes(s.stats.bytes),
    formatBytes(s.stats.addedBytes),
    s.clone ? 'yes' : 'no',
    s.label ?? '',
  ]);
  const header = ['SNAPSHOT', 'AGENT', 'AGENT ID', 'CREATED', 'FILES', 'SIZE', 'ADDED', 'CLONE', 'LABEL'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `agentbox snapshot show`: one snapshot, a fact a line; the sharing lines when the record has them (GET of one). */
export function formatSnapshot(s: SnapshotRecord): string {
  const { files, dirs, symlinks, skipped, bytes, storedBytes, addedBytes, changed, durationMs } = s.stats;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const held = [
    count(files, 'file', 'files'),
    ...(dirs !== undefined ? [count(dirs, 'directory', 'directories')] : []),
    ...(symlinks !== undefined ? [count(symlinks, 'link', 'links')] : []),
  ];
  const lines: Array<[string, string]> = [
    ['snapshot', `${s.id}${s.label !== undefined ? `  ${JSON.stringify(s.label)}` : ''}`],
    ['agent', `${s.agent.name} (${s.agent.id}), working directory ${s.agent.cwd}`],
    ['created', `${s.createdAt} in ${durationMs} ms, ${formatBytes(addedBytes)} added to the store`],
    ['holds', `${held.join(', ')}: ${formatBytes(bytes)}${skipped ? `; ${skipped} left out (FIFOs, sockets, devices, other owners' files)` : ''}`],
    ['stored', `${formatBytes(storedBytes)} of distinct chunks`],
  ];
  if (s.sharing) {
    lines.push(
      ['shares', `${formatBytes(s.sharing.sharedBytes)} with other snapshots`],
      ['alone', `${formatBytes(s.sharing.exclusiveBytes)} (what deleting it frees)`],
      ['charged', `${formatBytes(s.sharing.chargedBytes)} (the chunks it is the oldest snapshot to refer to)`],
    );
  }
  lines.push(['clone', s.clone ? 'yes: forks and restores of it are clones, made in constant time' : 'no: forks and restores of it copy']);
  if (s.warm) {
    const { wanted, ready, building, error } = s.warm;
    lines.push([
      'warm',
      `${ready} of ${wanted} copies ready for forks${building ? ', one building' : ''}${error !== undefined ? `; the last build failed: ${error}` : ''}`,
    ]);
  }
  if (changed) lines.push(['changing', `${count(changed, 'file', 'files')} kept changing while read, kept as last read: ${(s.changedPaths ?? []).join(', ')}`]);
  const width = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}
