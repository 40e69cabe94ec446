// One agent's output, followed live from /v1/agents/:id/output (SSE) until its `end` record.
import { Component } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { useStream } from '../live.js';
import { appendChunk, type Blocks } from '../output-blocks.js';
import type { Agent, ErrorBody, OutputChunk } from '../types.js';

/**
 * One block of the log. Only the last block ever receives new chunks, so the others skip their
 * render entirely; each is laid out as its own block, so the browser lays out only the last one.
 */
class LogBlock extends Component<{ chunks: readonly OutputChunk[] }> {
  override shouldComponentUpdate(next: { chunks: readonly OutputChunk[] }): boolean {
    return next.chunks !== this.props.chunks;
  }

  override render({ chunks }: { chunks: readonly OutputChunk[] }) {
    return (
      <span class="log-block">
        {chunks.map((c) => (
          <span key={c.seq} class={c.stream === 'stderr' ? 'stderr' : undefined}>
            {c.text}
          </span>
        ))}
      </span>
    );
  }
}

/** The output panel of `agent`. */
export function AgentOutput({ agent }: { agent: Agent }) {
  // Bounded (output-blocks.ts): enough for a long session without letting the page grow without end.
  const [blocks, setBlocks] = useState<Blocks<OutputChunk>>([]);
  const [ended, setEnded] = useState<Agent>();
  const [error, setError] = useState<string>();
  const logRef = useRef<HTMLPreElement>(null);
  // Following the end of the log: once per frame, not once per chunk (each read of scrollHeight lays the page out).
  const scrollQueued = useRef(false);
  // A finished stream is not reopened: the URL goes away and so does the EventSource.
  const url = ended || error ? undefined : `/v1/agents/${encodeURIComponent(agent.id)}/output?follow=true`;

  useStream(url, {
    events: {
      output: (data) => {
        const chunk = JSON.parse(data) as OutputChunk;
        setBlocks((list) => appendChunk(list, chunk));
        if (scrollQueued.current) return;
        scrollQueued.current = true;
        requestAnimationFrame(() => {
          scrollQueued.current = false;
          const el = logRef.current;
          if (el) el.scrollTop = el.scrollHeight;
        });
      },
      // The server ends the stream after `end`; closing here keeps the browser from reconnecting.
      end: (data, source) => {
        source.close();
        setEnded((JSON.parse(data) as { agent: Agent }).agent);
      },
      error: (data, source) => {
        source.close();
        const body = JSON.parse(data) as ErrorBody;
        setError(`${body.message} (${body.error})`);
      },
    },
    onClosed: () => setError('The output stream was refused; the session may have ended.'),
  });

  return (
    <section aria-labelledby="h-output" class="card" data-testid="agent-output-panel">
      <h2 id="h-output">
        Output of {agent.name} <span class="muted small">{agent.id}</span>
      </h2>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the log is a scrollable region; the tab stop lets a keyboard user scroll it */}
      <pre class="log" role="log" aria-live="polite" aria-label={`Output of ${agent.name}`} tabIndex={0} ref={logRef} data-testid="agent-output">
        {blocks.map((b) => (
          <LogBlock key={b[0]!.seq} chunks={b} />
        ))}
      </pre>
      {ended ? (
        <p class="muted" data-testid="output-ended">
          Ended: {ended.state}
          {ended.exitCode !== undefined ? `, exit code ${ended.exitCode}` : ''}
          {ended.signal ? `, ${ended.signal}` : ''}
          {ended.reason ? ` (${ended.reason})` : ''}
        </p>
      ) : null}
      {error ? (
        <p class="note error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
