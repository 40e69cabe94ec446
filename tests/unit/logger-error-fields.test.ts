// The logger's `err` and `error` fields: an Error is serialised with its message and stack (secrets scrubbed); a code given as text stays text.
import t from 'tap';
import { Writable } from 'node:stream';
import { createLogger } from '../../management-api/src/observability/logger.js';

function capture(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

t.test('a rejection logs its code as text, not one key per character', async (t) => {
  const { logger, lines } = capture();
  logger.info({ event: 'RequestRejected', error: 'ABX_ERR_FILE_PATH', status: 400 }, 'refused');
  logger.info({ error: 42 }, 'a number stays one');
  t.equal(lines()[0]!['error'], 'ABX_ERR_FILE_PATH');
  t.equal(lines()[1]!['error'], 42);
});

t.test('an Error under err or error is serialised', async (t) => {
  const { logger, lines } = capture();
  logger.error({ err: new Error('boom') }, 'failed');
  logger.error({ error: new TypeError('bad') }, 'failed');
  t.match(lines()[0]!['err'], { type: 'Error', message: 'boom', stack: /boom/ });
  t.match(lines()[1]!['error'], { type: 'TypeError', message: 'bad' });
});
