// `agentbox cp SRC DST`: files and directories between this machine and an agent's workspace, either way.
import { parseArgs } from 'node:util';
import { resolveAgent } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { SNAPSHOT_ID } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { download } from './cp-download.js';
import type { FilesRoot } from './cp-remote.js';
import { parseOperands } from './cp-operands.js';
import { upload } from './cp-upload.js';

export const usage = `Usage: agentbox cp [options] SRC DST

Copy between this machine and an agent's workspace. One side is AGENT:PATH (AGENT an id, a
unique id prefix or a name; PATH relative to the agent's working directory, "" or / its root),
the other a local path, or - for stdin/stdout.

  agentbox cp notes.txt worker:notes.txt      a file, up (PUT, atomic on the box)
  agentbox cp worker:out/report.md .          a file, down (into ./report.md)
  agentbox cp ./src worker:src                a directory, up (one tar, all or nothing)
  agentbox cp worker:build ./build            a directory, down (a tar, extracted here)
  agentbox cp - worker:input.json < in.json   stdin to a file; worker:f - prints a file
                                              (a directory to - writes its tar)
  agentbox cp snp_…:src ./src-then            out of a snapshot (SNAPSHOT:PATH, its id
                                              snp_…): read from the store, no fork

A directory copied onto an existing directory goes inside it under its own name (as cp -r);
onto a missing path, it becomes that path. A source ending in "." (worker:src/., ./build/.) is
the directory's contents: merged into an existing directory, as cp -r dir/. and docker cp do. A downloaded tree is checked as the box checks an
upload: a link leading outside it, a hard link, a device or FIFO refuses the whole copy, and
nothing is left behind; the directory keeps its mode. A path ending in / names a directory: a file
goes into it, refused when it is not one. A file down onto a FIFO or a character device is written
into it, onto a link through it (not a dangling one); a socket or block device is refused.
A local path with a colon before its first slash is written ./a:b; one starting with - after --.
Progress goes to stderr, on a terminal, for transfers over 4 MB.

Options:
${targetHelp} (what was copied: kind, from, to, bytes, entries)
  -h, --help       show this help

Exit codes: 0 copied, 1 refused, no such agent or path, or unreachable, 2 bad usage (a .. in a path).`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions } });
  if (positionals.length !== 2) throw new UsageError('give exactly a source and a destination');
  const { src, dst } = parseOperands(positionals[0], positionals[1]);
  const target = await resolveTarget(values);
  const remote = src.kind === 'remote' ? src : dst;
  if (remote.kind !== 'remote') throw new UsageError('one side is AGENT:PATH');
  // A snapshot's id in place of an agent: its files, read from the store (no fork); read only.
  if (SNAPSHOT_ID.test(remote.agent) && src.kind !== 'remote')
    throw new UsageError(
      `${remote.agent} is a snapshot, which is never written: fork it into an agent (agentbox run --from-snapshot ${remote.agent} …) and copy into that`,
    );
  const files: FilesRoot = SNAPSHOT_ID.test(remote.agent) ? { snapshot: remote.agent } : { agent: (await resolveAgent(target, remote.agent)).id };
  const report = src.kind === 'remote' ? await download(target, files, src, dst as Exclude<typeof dst, typeof src>) : await upload(target, files, src, remote);
  // With the data on stdout, the summary goes to stderr.
  if (values.json) (dst.kind === 'stdio' ? process.stderr : process.stdout).write(`${JSON.stringify(report)}\n`);
  return 0;
}
