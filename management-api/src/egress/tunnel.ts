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

/** The read buffer a tunnel starts with: what an idle or slow tunnel holds. */
export const TUNNEL_READ_MIN = 16 * 1024;
/**
 * The most a tunnel's read buffer grows to: a read that fills the buffer doubles it, so a bulk
 * transfer ends up with large reads (fewer event-loop turns and syscalls per byte: the proxy's
 * CPU per GiB is about halved between 128 KiB and 16 KiB reads) while idle tunnels stay small.
 */
export const TUNNEL_READ_MAX = 512 * 1024;

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
    let buffer = Buffer.allocUnsafe(TUNNEL_READ_MIN);
    let filled = false;
    upstream = net.connect({
      host: address,
      port,
      onread: {
        // Asked for the buffer of the next read after each read: the same one, or a new one twice
        // the size after a read that filled it.
        buffer: () => {
          if (filled && buffer.length < TUNNEL_READ_MAX) buffer = Buffer.allocUnsafe(buffer.length * 2);
          filled = false;
          return buffer;
        },
        // The chunk is written from the read buffer itself. A write the kernel took at once
        // leaves nothing referring to it, and the next read may reuse it; a write that had to
        // wait still refers to it, so reading stops (false pauses the socket) until the agent's
        // side has drained. Back-pressure and buffer reuse are the same rule.
        callback: (bytes: number, read: Uint8Array): boolean => {
          filled = bytes === read.length;
          if (agent.destroyed) return false;
          agent.write(read.subarray(0, bytes));
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
