// The input requests queue on its own: the cap in all (a prompt beyond it is counted, not raised), one open prompt per agent, withdrawal only of prompts, the end of an agent and of the API waking waiting calls.
import pino from 'pino';
import { Registry } from 'prom-client';
import t from 'tap';
import { createInputRequestMetrics } from '../../../management-api/src/input-requests/metrics.js';
import { InputRequestQueue } from '../../../management-api/src/input-requests/queue.js';

function queue(maxOpen: number) {
  const registry = new Registry();
  const typed: Array<[string, string]> = [];
  const recorded: Array<[string, Record<string, unknown>]> = [];
  const q = new InputRequestQueue({
    metrics: createInputRequestMetrics(registry),
    logger: pino({ level: 'silent' }),
    record: async (kind, data) => void recorded.push([kind, data]),
    type: async (agentId, data) => void typed.push([agentId, data]),
    maxOpen,
  });
  return { q, registry, typed, recorded };
}
const prompt = (line: string) => ({ line, pattern: 'yes-no', lines: [line] });

t.test('a prompt beyond the cap in all is counted as refused, not raised; an explicit one is refused with 429', async (t) => {
  const { q, registry } = queue(2);
  q.prompted({ id: 'a1', name: 'a' }, prompt('One? (y/n)'));
  q.raise({ id: 'a2', name: 'b' }, 'Two?');
  q.prompted({ id: 'a3', name: 'c' }, prompt('Three? (y/n)'));
  t.equal(q.list().length, 2);
  t.throws(() => q.raise({ id: 'a4', name: 'd' }, 'Four?'), {
    code: 'ABX_ERR_INPUT_REQUESTS_FULL',
    message: /2 input requests are open on this box \(at most 2\)/,
  });
  const text = await registry.metrics();
  t.match(text, /agentbox_input_requests_total\{reason="prompt",outcome="refused"\} 1/);
  t.match(text, /agentbox_input_requests_total\{reason="explicit",outcome="refused"\} 1/);
  t.match(text, /agentbox_input_requests_open\{reason="prompt"\} 1/);
  t.match(text, /agentbox_input_requests_open\{reason="explicit"\} 1/);
});

t.test('one open prompt per agent; moving on withdraws prompts only; the end ends all and wakes a waiting call', async (t) => {
  const { q, recorded } = queue(10);
  q.prompted({ id: 'a1', name: 'a' }, prompt('First? (y/n)'));
  q.prompted({ id: 'a1', name: 'a' }, prompt('Second? (y/n)'));
  const asked = q.raise({ id: 'a1', name: 'a' }, 'Explicit?');
  t.same(
    q.list().map((r) => r.prompt),
    ['Second? (y/n)', 'Explicit?'],
    'the first prompt gave way to the second',
  );
  q.movedOn('a1', 'input');
  t.same(
    q.list().map((r) => r.prompt),
    ['Explicit?'],
    'typing withdraws the prompt, not what the agent asked itself',
  );
  const waiting = q.own(asked.id, 'a1', 60_000);
  q.ended('a1');
  t.match(await waiting, { state: 'ended', closed: { why: 'agent-ended' } });
  t.same(
    recorded.map(([kind, d]) => `${kind}:${String(d['state'] ?? d['prompt'])}`),
    [
      'agent.input_requested:First? (y/n)',
      'agent.input_withdrawn:withdrawn',
      'agent.input_requested:Second? (y/n)',
      'agent.input_requested:Explicit?',
      'agent.input_withdrawn:withdrawn',
      'agent.input_withdrawn:ended',
    ],
  );
});

t.test("a prompt's answer is typed with Enter; the API's close ends what is open and refuses new requests", async (t) => {
  const { q, typed } = queue(10);
  q.prompted({ id: 'a1', name: 'a' }, prompt('Go? (y/n)'));
  const [open] = q.list();
  t.match(await q.answer(open!.id, { text: 'y', enter: true }, { kind: 'api-key' }), { state: 'answered' });
  t.same(typed, [['a1', 'y\r']]);
  await t.rejects(q.answer(open!.id, { text: 'y', enter: true }, { kind: 'api-key' }), { code: 'ABX_ERR_INPUT_REQUEST_CLOSED' });
  const asked = q.raise({ id: 'a2', name: 'b' }, 'Anyone?');
  const waiting = q.own(asked.id, 'a2', 60_000);
  q.close();
  t.match(await waiting, { state: 'ended', closed: { why: 'api-closed' } });
  t.throws(() => q.raise({ id: 'a2', name: 'b' }, 'Still?'), { code: 'ABX_ERR_INPUT_REQUESTS_FULL', message: /stopping/ });
});
