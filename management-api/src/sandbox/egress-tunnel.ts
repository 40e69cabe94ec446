// The byte relay of an admitted CONNECT tunnel: upstream to agent through one reused read buffer, agent to upstream by pipe.
import net from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * How a tunnel moves bytes. `buffer` (the default): the upstream socket reads into one buffer
 * per tunnel that is reused for every read and written on without a copy. `pipe`: Node streams
 * both ways, a fresh 64 KiB buffer per read (the earlier relay, kept as a fallback and as the
 * benchmark's baseline).
 */
export type TunnelRelay = 'buffer' | 'pipe';

/** Bytes of the reused read buffer of one tunnel: large reads cost fewer event-loop turns on fast links. */
export const TUNNEL_READ_BYTES = 128 * 1024;

/** The relay named by AGENTBOX_EGRESS_RELAY (`buffer` when unset); throws naming the variable otherwise. */
export function tunnelRelayFrom(env: Readonly<Record<string, string | undefined>>): TunnelRelay {
  const value = env['AGENTBOX_EGRESS_RELAY'] ?? 'buffer';
  if (value === 'buffer' || value === 'pipe') return value;
  throw new Error(`AGENTBOX_EGRESS_RELAY must be "buffer" or "pipe", not "${value}"`);
}

/** What the proxy learns of the upstream connection of a tunnel. */
export interface TunnelEvents {
  /** Connected: the proxy answers 200 now (written before any relayed byte). */
  onConnect: () => void;
  /** The connection could not be made (before anything was relayed). */
  onConnectFailed: () => void;
}

/**
 * Connect to `address:port` and relay between it and `agent` once connected; `head` (bytes the
 * agent sent after its CONNECT header) goes upstream first. A clean end travels through (each
 * side ends the other once flushed, so half-closes pass); only an error cuts the other side off.
 */
export function openTunnel(agent: Duplex, address: string, port: number, head: Buffer, events: TunnelEvents, relay: TunnelRelay = 'buffer'): net.Socket {
  let upstream: net.Socket;
  if (relay === 'pipe') {
    upstream = net.connect({ host: address, port });
  } else {
    upstream = net.connect({
      host: address,
      port,
      onread: {
        buffer: Buffer.allocUnsafe(TUNNEL_READ_BYTES),
        // The chunk is written from the read buffer itself. A write the kernel took at once
        // leaves nothing referring to it, and the next read may reuse it; a write that had to
        // wait still refers to it, so reading stops (false pauses the socket) until the agent's
        // side has drained. Back-pressure and buffer reuse are the same rule.
        callback: (bytes: number, buffer: Uint8Array): boolean => {
          if (agent.destroyed) return false;
          agent.write(buffer.subarray(0, bytes));
          if (agent.writableLength === 0) return true;
          agent.once('drain', () => upstream.resume());
          return false;
        },
      },
    });
    upstream.once('end', () => agent.end());
  }
  upstream.setNoDelay(true);
  // Not readyState: a socket whose connect failed is already 'closed' when its error is emitted.
  let connected = false;
  upstream.once('error', () => (connected ? agent.destroy() : events.onConnectFailed()));
  upstream.once('connect', () => {
    connected = true;
    events.onConnect();
    if (head.length) upstream.write(head);
    if (relay === 'pipe') upstream.pipe(agent);
    agent.pipe(upstream);
  });
  agent.once('close', () => upstream.destroy());
  upstream.once('close', (hadError) => hadError && agent.destroy());
  return upstream;
}
