// socket.io's in-memory adapter with one shortcut: a broadcast's WebSocket frame, built once (as socket.io already
// does), is written straight to the TCP socket of every receiver whose connection is idle — nothing waiting in
// engine.io, in ws or in the socket itself. For those receivers that skips socket.io's client, engine.io's packet,
// its events and buffer, ws's framing call and the corked two-buffer write: the same bytes on the wire, 4–5.6 µs
// less CPU per delivered snapshot at 10,000 students (docs/performance.md, "The sixth stretch"). Any receiver
// that is not idle — long-polling, upgrading, closing, or with bytes still queued — takes socket.io's own path,
// behind what already waits for it, so a connection's messages keep their order and a slow reader is still
// counted and cut by the outbound guard (guard.ts), which sees what the socket holds through ws's
// `bufferedAmount`. It reads a few private fields of socket.io-adapter, engine.io and ws (those engine.io itself
// uses); test/server/frames.test.ts fails should an upgrade change them.
import type { Socket as NetSocket } from 'node:net';
import { Adapter, type BroadcastOptions } from 'socket.io-adapter';

/** ws's WebSocket as far as the shortcut reads it. */
interface WsLike {
  readyState: number;
  /** Bytes in ws's own queue and in the TCP socket's buffer. */
  bufferedAmount: number;
  _socket?: NetSocket;
}

/** engine.io's Socket as far as the shortcut reads it. */
interface EngineLike {
  readyState: string;
  writeBuffer: unknown[];
  transport: { name: string; writable: boolean; socket?: WsLike };
}

interface SocketLike {
  conn: EngineLike;
  client: { writeToEngine(packets: unknown[], opts: object): void };
  notifyOutgoingListeners?: (packet: unknown) => void;
}

/** What the in-memory adapter keeps private and this subclass uses. */
interface AdapterInternals {
  _encode(packet: unknown, packetOpts: { wsPreEncodedFrame?: Buffer[] }): unknown[];
  apply(opts: BroadcastOptions, each: (socket: SocketLike) => void): void;
}

const WS_OPEN = 1;

/** The TCP socket of a connection that can take a frame now without overtaking anything, or null. */
function idleSocket(conn: EngineLike): NetSocket | null {
  if (conn.readyState !== 'open' || conn.writeBuffer.length !== 0) return null;
  const t = conn.transport;
  // writable: engine.io's last frames were handed on (it buffers while they are not).
  if (t.name !== 'websocket' || !t.writable) return null;
  const ws = t.socket;
  if (!ws || ws.readyState !== WS_OPEN || ws.bufferedAmount !== 0) return null;
  const net = ws._socket;
  return net && !net.destroyed && net.writable ? net : null;
}

export class FrameAdapter extends Adapter {
  /** Receivers written to directly and through socket.io, since the start (the fanout bench reads them). */
  readonly counts = { direct: 0, queued: 0 };

  override broadcast(packet: unknown, opts: BroadcastOptions): void {
    const flags = opts.flags ?? {};
    // Volatile packets are dropped by socket.io for a busy transport: its own path keeps that rule.
    if (flags.volatile) {
      super.broadcast(packet, opts);
      return;
    }
    const self = this as unknown as AdapterInternals;
    const packetOpts: { preEncoded: true; compress?: boolean; wsPreEncodedFrame?: Buffer[] } = {
      preEncoded: true,
      compress: flags.compress,
    };
    (packet as { nsp: string }).nsp = this.nsp.name;
    const encoded = self._encode(packet, packetOpts);
    const frame = packetOpts.wsPreEncodedFrame;
    // No frame made (binary attachments: several packets): socket.io's own path for everyone.
    let whole: Buffer | null = null;
    self.apply(opts, (socket) => {
      socket.notifyOutgoingListeners?.(packet);
      const net = frame ? idleSocket(socket.conn) : null;
      if (net && frame) {
        // Server frames are not masked: one buffer serves every receiver.
        whole ??= frame.length === 1 ? frame[0] : Buffer.concat(frame);
        net.write(whole);
        this.counts.direct++;
      } else {
        socket.client.writeToEngine(encoded, packetOpts);
        this.counts.queued++;
      }
    });
  }
}
