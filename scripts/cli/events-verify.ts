// `agentbox events verify`: recompute the hash chain of a box's event log (events/local-jsonl)
// and name the first line that breaks it; against a signed checkpoint, catch truncation and rewriting.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { verifyEventLog, verifyEventLogFile, type VerifyReport } from '../../management-api/src/adapters/events/log-verify.js';
import { listSegments } from '../../management-api/src/adapters/events/log-files.js';
import { auditAgainstCheckpoint, type CheckpointAudit } from '../../management-api/src/adapters/events/log-audit.js';
import { TLOG_FILES } from '../../management-api/src/adapters/events/log-checkpoints.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { parseCosignatureVerifier, verifyCosignature, type VerifiedCosignature } from '../../management-api/src/tlog/cosignature.js';
import { askKeyProof } from './key-proof-check.js';
import { UsageError, UserError } from './cli-errors.js';
import { verifyRemote } from './events-remote-verify.js';

/** The state volume's place under a box root (`/var/lib/agentbox` in the image). */
const stateDirUnderRoot = runtimePaths({ AGENTBOX_ROOT: '/' }).stateDir;

export const usage = `Usage: agentbox events verify [--root DIR | PATH] [--against CHECKPOINT [--key KEY] [--witness-key KEY]] [--json]
       agentbox events verify --remote URL --against OLD_CHECKPOINT [--key KEY] [--key-file FILE | --root DIR] [--json]

Recompute the hash chain of the box's event log (adapter events/local-jsonl) and report the first
line that breaks it: an edited line (hash mismatch), a removed, inserted or reordered line or
segment (prev or seq mismatch), or a malformed line. With --against, also check the log against a
checkpoint the box signed: its signature, then that the log's first SIZE entries hash to its root
(a truncated log has fewer entries; a rewritten one gives another root, and the first entry that
differs is named when the box's stored tree allows).

Arguments:
  PATH         a log directory (holding events-000001.jsonl, …), or one segment file, checked
               on its own from its first line (its link to the segment before is not checked)

Options:
  --root DIR   the box's root: verify DIR${stateDirUnderRoot}/events
               (default: $AGENTBOX_ROOT, else ./.agentbox)
  --against F  a signed checkpoint (the note served at GET /v1/events/checkpoint, or the
               log's tlog/checkpoint file copied off the machine)
  --key KEY    the log's verifier key (<origin>+<id>+<key>, or a file holding it), as
               GET /v1/meta gives it (eventLog.verifierKey); default: the log directory's
               tlog/verifier-key, which only shows the log agrees with itself — an outsider
               passes a key obtained elsewhere
  --witness-key KEY
               require a cosignature (C2SP tlog-cosignature) of the checkpoint by this
               witness: its verifier key (<name>+<id>+<key>, type 0x04, as the mesh host's
               GET /v1/meta gives it under federation.witness.verifierKey), or a file holding
               it; such a checkpoint is the note of a line of the box's tlog/cosignatures.jsonl
  --json       print {ok, path, files, events, head, firstBad?, incompleteTailBytes?, against?}
               (with --remote: {ok, outcome, url, origin, old, current, keySource, message})
  -h, --help   show this help

Remote (a box on another machine, without its files):
  --remote URL the box's API: its current checkpoint (GET /v1/events/checkpoint) and a
               consistency proof from the size of --against to it (GET /v1/events/proof/
               consistency) are verified: grown (the old log is a prefix), same, or forked
               (truncated or rewritten since the old checkpoint)
  --key KEY    the verifier key both checkpoints must verify with; without it, the key the box
               names in GET /v1/meta, accepted only when the old checkpoint verifies with it (a
               note names its key by a 4-byte id only, so another key needs --key)
  --key-file F the box's API key (default: the key file under --root, $AGENTBOX_ROOT or ./.agentbox)

Removing lines from the very end leaves a shorter chain that still verifies: compare the head
printed here with one recorded elsewhere to catch that.

Exit codes: 0 intact (remote: grown or same), 1 a line breaks the chain (file, line number and what is wrong) or the log
is truncated or rewritten against the checkpoint (remote: forked), 2 bad usage, the box cannot be reached, the log cannot be read, or the
checkpoint does not verify with the key (or carries no valid cosignature by --witness-key).`;

/** The log to verify: a directory of segments, or one segment file. */
async function resolveLog(positional: string | undefined, root: string | undefined): Promise<{ path: string; kind: 'dir' | 'file' }> {
  if (positional !== undefined && root !== undefined) throw new UsageError('give either --root DIR or a PATH, not both');
  const target = positional ?? path.join(runtimePaths({ AGENTBOX_ROOT: path.resolve(root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox') }).stateDir, 'events');
  const info = await stat(target).catch((err: NodeJS.ErrnoException) => {
    throw new UserError(
      `cannot read the event log ${target}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}${positional === undefined ? '; pass --root DIR (the box root) or the log directory' : ''}`,
    );
  });
  if (info.isDirectory()) {
    if ((await listSegments(target, 'events')).length === 0) throw new UserError(`${target} holds no event log segments (events-000001.jsonl, …)`);
    return { path: target, kind: 'dir' };
  }
  return { path: target, kind: 'file' };
}

/** The verifier key: --key (a key string or a file holding one), else the log's published one. */
async function verifierKeyFor(key: string | undefined, logDir: string): Promise<string> {
  if (key !== undefined && /^[^+\s]+\+[0-9a-f]{8}\+\S+$/.test(key.trim())) return key.trim();
  const file = key ?? path.join(logDir, 'tlog', TLOG_FILES.verifierKey);
  return (
    await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UserError(
        `cannot read the verifier key ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}${key === undefined ? '; pass --key with the verifier key from GET /v1/meta (eventLog.verifierKey)' : ''}`,
      );
    })
  ).trim();
}

/** Check the log against the checkpoint file; a checkpoint that does not verify (or lacks the witness's cosignature) is a user error (exit 2). */
async function audit(
  logDir: string,
  against: string,
  key: string | undefined,
  witnessKey: string | undefined,
): Promise<CheckpointAudit & { witness?: VerifiedCosignature & { cosignedAt: string } }> {
  const note = await readFile(against, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UserError(`cannot read the checkpoint ${against}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const verifierKey = await verifierKeyFor(key, logDir);
  let witness: (VerifiedCosignature & { cosignedAt: string }) | undefined;
  if (witnessKey !== undefined) {
    const text = /^[^+\s]+\+[0-9a-f]{8}\+\S+$/.test(witnessKey.trim())
      ? witnessKey.trim()
      : (
          await readFile(witnessKey, 'utf8').catch((err: NodeJS.ErrnoException) => {
            throw new UserError(`cannot read the witness key ${witnessKey}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
          })
        ).trim();
    try {
      // A cosignature dated more than 5 minutes ahead of this machine's clock is refused.
      const found = verifyCosignature(note, parseCosignatureVerifier(text), Math.floor(Date.now() / 1000) + 300);
      witness = { ...found, cosignedAt: new Date(found.timestamp * 1000).toISOString() };
    } catch (err) {
      throw new UserError(`the checkpoint ${against} is not witnessed: ${(err as Error).message}`);
    }
  }
  try {
    return { ...(await auditAgainstCheckpoint(logDir, note, verifierKey)), ...(witness ? { witness } : {}) };
  } catch (err) {
    throw new UserError(`the checkpoint ${against} cannot be used: ${(err as Error).message}`);
  }
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      root: { type: 'string' },
      json: { type: 'boolean' },
      against: { type: 'string' },
      key: { type: 'string' },
      'witness-key': { type: 'string' },
      remote: { type: 'string' },
      'key-file': { type: 'string' },
    },
  });
  if (values.remote !== undefined) return runRemote(values, positionals);
  if (values['key-file'] !== undefined) throw new UsageError('--key-file (the box API key) is used with --remote URL');
  if (positionals.length > 1) throw new UsageError(`expected at most one PATH, got ${positionals.length}`);
  if (values.key !== undefined && values.against === undefined) throw new UsageError('--key is used with --against CHECKPOINT');
  if (values['witness-key'] !== undefined && values.against === undefined) throw new UsageError('--witness-key is used with --against CHECKPOINT');
  const log = await resolveLog(positionals[0], values.root);
  if (values.against !== undefined && log.kind !== 'dir')
    throw new UsageError('--against checks a whole log: give its directory (or --root), not one segment file');
  let report: VerifyReport;
  try {
    report = log.kind === 'dir' ? await verifyEventLog(log.path) : await verifyEventLogFile(log.path);
  } catch (err) {
    throw new UserError(`cannot read the event log ${log.path}: ${(err as Error).message}`);
  }
  const against = values.against !== undefined ? await audit(log.path, values.against, values.key, values['witness-key']) : undefined;
  const ok = report.ok && (against?.ok ?? true);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ path: log.path, ...report, ok, chainOk: report.ok, ...(against ? { against } : {}) }, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  if (against && !against.ok) {
    process.stderr.write(`${log.path}: against the checkpoint of ${against.checkpoint.origin} at size ${against.checkpoint.size}: ${against.message}\n`);
  }
  const where = (file: string): string => (log.kind === 'dir' ? path.join(log.path, file) : log.path);
  if (report.firstBad) {
    // The chain's own finding is printed too: it locates an edited line even without a checkpoint.
    const bad = report.firstBad;
    process.stderr.write(`${where(bad.file)}:${bad.line}: ${bad.seq !== undefined ? `seq ${bad.seq}: ` : ''}${bad.reason}\n`);
    process.stderr.write(`the chain is intact up to seq ${report.head.seq} (${report.events} event${report.events === 1 ? '' : 's'} before this line)\n`);
    return 1;
  }
  const files = `${report.files} file${report.files === 1 ? '' : 's'}`;
  if (against && !against.ok) {
    process.stderr.write(
      `the hash chain itself holds (${report.events} events in ${files}, head seq ${report.head.seq}): a chain cut at its end or rebuilt after an edit verifies on its own; the checkpoint is what catches it\n`,
    );
    return 1;
  }
  process.stdout.write(`${log.path}: intact, ${report.events} events in ${files}; head seq ${report.head.seq}, hash ${report.head.hash}\n`);
  if (report.incompleteTailBytes) {
    process.stdout.write(
      `  ${report.incompleteTailBytes} bytes after the last newline: an append cut short by a crash, never acknowledged (discarded when the log is next opened)\n`,
    );
  }
  if (against) {
    process.stdout.write(
      `  against the checkpoint of ${against.checkpoint.origin} at size ${against.checkpoint.size} (signature verified): ${against.message}\n`,
    );
    if (against.witness) process.stdout.write(`  witnessed: cosigned by ${against.witness.witness} at ${against.witness.cosignedAt} (cosignature verified)\n`);
  }
  return 0;
}

/**
 * The key goes only to a box that proves it holds it already: another box is refused here; an
 * unreachable one gets no key and is reported as unreachable by the check itself.
 */
async function keyMayGo(url: string, key: string, keyFile: string): Promise<boolean> {
  const proof = await askKeyProof(url.replace(/\/+$/, ''), key, keyFile);
  // Exit 2, the command's code for a box it could not check: its exit 1 means the history forked.
  if (proof.kind === 'refused') throw new UserError(proof.message, 2);
  return proof.kind === 'proven';
}

/** `--remote URL --against OLD`: the box's current checkpoint and a consistency proof from OLD's size, over its API. */
async function runRemote(
  values: { remote?: string; against?: string; key?: string; 'key-file'?: string; root?: string; json?: boolean; 'witness-key'?: string },
  positionals: string[],
): Promise<number> {
  if (values.against === undefined) throw new UsageError('--remote URL needs --against OLD_CHECKPOINT: the checkpoint the box is held to');
  if (positionals.length > 0) throw new UsageError('--remote checks a box over its API: give no PATH');
  if (values['witness-key'] !== undefined)
    throw new UsageError('--witness-key checks a local log against a cosigned checkpoint; with --remote, verify the old checkpoint locally first');
  if (!/^https?:\/\/[^\s]+$/.test(values.remote ?? '')) throw new UsageError(`--remote ${JSON.stringify(values.remote)} is not an http(s) URL`);
  const keyFile = values['key-file'] ?? runtimePaths({ AGENTBOX_ROOT: path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox') }).apiKeyFile;
  const apiKey = (
    await readFile(keyFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (values['key-file'] !== undefined) throw new UserError(`cannot read --key-file ${keyFile}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      return '';
    })
  ).trim();
  const report = await verifyRemote({
    url: values.remote!,
    against: values.against,
    ...(values.key !== undefined ? { key: values.key } : {}),
    ...(apiKey && (await keyMayGo(values.remote!, apiKey, keyFile)) ? { apiKey } : {}),
  });
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    const line = `${report.url}: ${report.outcome}: ${report.message} (log ${report.origin}; both checkpoints verified with ${report.keySource === 'key' ? '--key' : "the box's key, which the old checkpoint verifies with"})\n`;
    (report.ok ? process.stdout : process.stderr).write(line);
  }
  return report.ok ? 0 : 1;
}
