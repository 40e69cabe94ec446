// What `agentbox audit` shows, read from a box's event log directory: the decision events, the
// signed checkpoints, the witnesses' cosignatures of them, and whether the log still hashes to
// each cosigned root.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decodeLine, toStored } from '../../management-api/src/adapters/events/hash-chain.js';
import { listSegments } from '../../management-api/src/adapters/events/log-files.js';
import { storedLines } from '../../management-api/src/adapters/events/log-lines.js';
import { TLOG_FILES } from '../../management-api/src/adapters/events/log-checkpoints.js';
import { COSIGNATURES_FILE, type CosignatureRecord } from '../../management-api/src/mesh/client/member-witness.js';
import { EMPTY_ROOT, leafHash } from '../../management-api/src/tlog/rfc6962.js';
import { hashesToStore, rootFromFrontier } from '../../management-api/src/tlog/stored-hashes.js';

/** The decision kinds: what agents were allowed to do and who decided (policy decisions by prefix; an operator's decision on an approval request). */
const DECISION_KINDS = new Set(['agent.spawn', 'agent.terminate', 'agent.exit', 'sandbox.egress.policy', 'approval.decided']);
const isDecision = (kind: string): boolean => DECISION_KINDS.has(kind) || kind.startsWith('policy.');

/** A cosignature of a checkpoint, as the report lists it. */
export interface WitnessMark {
  witness: string;
  cosignedAt: string;
}

/** One decision event. */
export interface AuditDecision {
  seq: number;
  time: string;
  kind: string;
  source: string;
  /** The agent it concerns (data.agent), when it names one. */
  agent: string | null;
  data: Record<string, unknown>;
  /** The first witnessed checkpoint that covers it (its size), or null: not witnessed yet. */
  witnessedAt: { size: number; witnesses: WitnessMark[] } | null;
}

/** One checkpoint the box signed, and its witnesses. */
export interface AuditCheckpoint {
  size: number;
  root: string;
  /** When the box signed it. */
  time: string;
  witnesses: WitnessMark[];
  /** Whether the log's first `size` entries still hash to `root` (null: the log is shorter). */
  logMatches: boolean | null;
}

/** The report. */
export interface AuditReport {
  log: string;
  entries: number;
  decisions: AuditDecision[];
  checkpoints: AuditCheckpoint[];
  /** Cosignatures of a checkpoint absent from the box's own history (its history was rewritten or lost). */
  strayCosignatures: Array<WitnessMark & { size: number; root: string }>;
}

/** Filters of the decisions. */
export interface AuditFilter {
  /** Inclusive ISO lower bound. */
  since?: string;
  agent?: string;
}

/** Read the log in `dir` (segments, tlog/checkpoints.jsonl, tlog/cosignatures.jsonl) once. */
export async function auditReport(dir: string, filter: AuditFilter = {}): Promise<AuditReport> {
  const checkpoints = (await jsonLines<{ time: string; size: number; root: string }>(path.join(dir, 'tlog', TLOG_FILES.history))).filter(
    (c) => Number.isSafeInteger(c.size) && typeof c.root === 'string',
  );
  const cosignatures = (await jsonLines<CosignatureRecord>(path.join(dir, 'tlog', COSIGNATURES_FILE))).filter(
    (c) => Number.isSafeInteger(c.size) && typeof c.root === 'string',
  );
  const sizes = new Set([...checkpoints.map((c) => c.size), ...cosignatures.map((c) => c.size)]);
  // One pass: decode the decisions, and take the root of the log at every size a checkpoint names.
  const roots = new Map<number, string>();
  const frontier: Buffer[] = [];
  const decisions: Omit<AuditDecision, 'witnessedAt'>[] = [];
  let entries = 0;
  const segments = await listSegments(dir, 'events');
  for (const segment of segments) {
    for await (const line of storedLines([{ path: segment.path, firstIndex: 0 }])) {
      hashesToStore(entries, leafHash(line.bytes), frontier);
      entries += 1;
      if (sizes.has(entries)) roots.set(entries, rootFromFrontier(entries, frontier).toString('base64'));
      const event = toStored(decodeLine(line.bytes.toString('utf8')));
      if (!isDecision(event.kind)) continue;
      if (filter.since !== undefined && event.time < filter.since) continue;
      const agent = typeof event.data['agent'] === 'string' ? event.data['agent'] : null;
      if (filter.agent !== undefined && agent !== filter.agent && event.data['name'] !== filter.agent) continue;
      decisions.push({ seq: event.seq, time: event.time, kind: event.kind, source: event.source, agent, data: event.data });
    }
  }
  const key = (size: number, root: string): string => `${size} ${root}`;
  const marks = new Map<string, WitnessMark[]>();
  for (const c of cosignatures) {
    const list = marks.get(key(c.size, c.root)) ?? [];
    if (!list.some((m) => m.witness === c.witness && m.cosignedAt === c.cosignedAt)) list.push({ witness: c.witness, cosignedAt: c.cosignedAt });
    marks.set(key(c.size, c.root), list);
  }
  const own = new Set(checkpoints.map((c) => key(c.size, c.root)));
  const listed: AuditCheckpoint[] = checkpoints.map((c) => ({
    size: c.size,
    root: c.root,
    time: c.time,
    witnesses: marks.get(key(c.size, c.root)) ?? [],
    logMatches: c.size > entries ? null : (c.size === 0 ? EMPTY_ROOT.toString('base64') : roots.get(c.size)) === c.root,
  }));
  // A decision is witnessed by the smallest cosigned checkpoint covering it whose root the log still gives.
  const witnessed = listed.filter((c) => c.witnesses.length && c.logMatches).sort((a, b) => a.size - b.size);
  return {
    log: dir,
    entries,
    decisions: decisions.map((d) => {
      const at = witnessed.find((c) => c.size >= d.seq);
      return { ...d, witnessedAt: at ? { size: at.size, witnesses: at.witnesses } : null };
    }),
    checkpoints: listed,
    strayCosignatures: cosignatures
      .filter((c) => !own.has(key(c.size, c.root)))
      .map((c) => ({ witness: c.witness, cosignedAt: c.cosignedAt, size: c.size, root: c.root })),
  };
}

async function jsonLines<T>(file: string): Promise<T[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as T];
      } catch {
        // A line cut short by a crash: the others still count.
        return [];
      }
    });
}
