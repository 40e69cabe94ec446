// Reads supervisord's programme states over its XML-RPC unix socket, for /health and for a
// restarted seal listener (which must learn the states supervisord will not replay); and stops a
// programme for the seal listener when supervisord would restart one that cannot start for ever.
import http from 'node:http';
import { stat } from 'node:fs/promises';
import type { RuntimePaths } from '../runtime-paths.js';
import { boxSupervisorUrl } from '../programme/supervised.js';

/** One supervised programme. */
export interface ProgramState {
  name: string;
  group: string;
  /** supervisord state name: RUNNING, STARTING, BACKOFF, EXITED, FATAL, STOPPED, … */
  state: string;
  description: string;
  pid: number;
  /** Exit status of the last run (meaningful once EXITED). */
  exitStatus: number;
  /** When supervisord last started it, in epoch seconds (0: never started). */
  startedAt: number;
}

/** What /health reports about supervised programmes. */
export type ProgramsReport = { available: true; programs: ProgramState[] } | { available: false; error: string };

/** supervisord's socket: the box's supervisor URL (`unix://…`, programme/supervised.ts) or the default under the run dir. */
export function supervisorSocket(env: Readonly<Record<string, string | undefined>>, paths: RuntimePaths): string {
  const url = boxSupervisorUrl(env);
  return url?.startsWith('unix://') ? url.slice('unix://'.length) : paths.supervisorSocket;
}

const request = '<?xml version="1.0"?><methodCall><methodName>supervisor.getAllProcessInfo</methodName><params></params></methodCall>';

/**
 * The programmes supervisord runs, or undefined when there is no supervisord socket (the API
 * runs outside a box). A socket that does not answer is reported, not thrown.
 */
export async function supervisedPrograms(socketPath: string, timeoutMs = 2_000): Promise<ProgramsReport | undefined> {
  const isSocket = await stat(socketPath).then(
    (s) => s.isSocket(),
    () => false,
  );
  if (!isSocket) return undefined;
  try {
    const xml = await post(socketPath, timeoutMs);
    if (xml.includes('<fault>')) return { available: false, error: `supervisord fault: ${memberValue(xml, 'faultString') ?? 'unknown'}` };
    return { available: true, programs: parseProcessInfo(xml) };
  } catch (err) {
    return { available: false, error: (err as Error).message };
  }
}

/**
 * Stop a programme (XML-RPC `stopProcess`, not waiting for it): what a supervisord that gave up on
 * it would have left. Resolves to undefined, or why it could not.
 */
export async function stopSupervisedProgram(socketPath: string, name: string, timeoutMs = 2_000): Promise<string | undefined> {
  const body = `<?xml version="1.0"?><methodCall><methodName>supervisor.stopProcess</methodName><params><param><value><string>${escapeXml(name)}</string></value></param><param><value><boolean>0</boolean></value></param></params></methodCall>`;
  try {
    const xml = await post(socketPath, timeoutMs, body);
    return xml.includes('<fault>') ? `supervisord fault: ${memberValue(xml, 'faultString') ?? 'unknown'}` : undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function post(socketPath: string, timeoutMs: number, body = request): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, path: '/RPC2', method: 'POST', headers: { 'content-type': 'text/xml', 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`supervisord answered HTTP ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`supervisord did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Parse the array of structs supervisor.getAllProcessInfo returns. */
export function parseProcessInfo(xml: string): ProgramState[] {
  const structs = xml.split('<struct>').slice(1);
  return structs.map((s) => ({
    name: memberValue(s, 'name') ?? '',
    group: memberValue(s, 'group') ?? '',
    state: memberValue(s, 'statename') ?? 'UNKNOWN',
    description: memberValue(s, 'description') ?? '',
    pid: Number(memberValue(s, 'pid') ?? 0),
    exitStatus: Number(memberValue(s, 'exitstatus') ?? 0),
    startedAt: Number(memberValue(s, 'start') ?? 0),
  }));
}

function memberValue(xml: string, name: string): string | undefined {
  const re = new RegExp(
    `<member>\\s*<name>${name}</name>\\s*<value>\\s*(?:<(?:string|int|i4|boolean)>([^<]*)</(?:string|int|i4|boolean)>|([^<]*))\\s*</value>`,
  );
  const m = re.exec(xml);
  if (!m) return undefined;
  return unescapeXml(m[1] ?? m[2] ?? '');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
