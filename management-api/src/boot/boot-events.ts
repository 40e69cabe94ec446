// Bootstrap events: one pino-format JSON line per event, tagged with `agentbox.stage`.
import { pino, type Logger } from 'pino';

/** Stages of boot, as they appear in the `agentbox.stage` field. */
export type BootStage = 'A' | 'B' | 'seal';

/** Emits bootstrap events for one stage. */
export interface BootEvents {
  /** Write one event line: `{"agentbox.stage":…, "event": name, ...fields, "msg": message}`. */
  emit(event: string, fields?: Record<string, unknown>, message?: string): void;
  /** Same, at error level. */
  fail(event: string, fields?: Record<string, unknown>, message?: string): void;
  logger: Logger;
}

/**
 * Events go to stderr by default: the seal listener's stdout is the supervisord event protocol,
 * and supervisord forwards every programme's stderr to its own log stream.
 */
export function bootEvents(stage: BootStage, destination: number = 2): BootEvents {
  const stream = pino.destination({ fd: destination, sync: true });
  // A reader that is gone (supervisord killed, its pipes closed: EPIPE) takes no more lines, and a
  // line it cannot take is not the stage's failure: without this listener the write error was
  // thrown from the log call, and stage B recorded "EPIPE: broken pipe, write" as why the boot failed.
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const logger = pino({ base: { pid: process.pid, 'agentbox.stage': stage }, level: 'info' }, stream);
  return {
    logger,
    emit: (event, fields = {}, message = event) => logger.info({ event, ...fields }, message),
    fail: (event, fields = {}, message = event) => logger.error({ event, ...fields }, message),
  };
}
