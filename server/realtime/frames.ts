// socket.io's in-memory adapter with one shortcut: a broadcast's WebSocket frame, built once (as socket.io already
// does), is written straight to the TCP socket of every receiver whose connection is idle — nothing waiting in
// engine.io, in ws or in the socket itself. For those receivers that skips socket.io's client, engine.io's packet,
// its events and buffer, ws's framing call and the corked two-buffer write: the same bytes on the wire, 4–5.6 µs
// less CPU per delivered snapshot at 10,000 students (docs/performance-log.md, "The sixth stretch"). Any receiver
// that is not idle — long-polling, upgrading, closing, or with bytes still queued — takes socket.io's own path,
// behind what already waits for it, so a connection's messages keep their order and a slow reader is still
// counted and cut by the outbound guard (guard.ts), which sees what the socket holds through ws's
// `bufferedAmount`. It reads a few private fields of socket.io-adapter, engine.io and ws (those engine.io itself
// uses); test/server/frames.test.ts fails should an upgrade change them.
//
// The direct frame is written into one buffer that lives as long as the process (FrameScratch), not into new
// Buffers: with a view per student, nearly every broadcast has one receiver, and socket.io's frame (a Buffer of
// the text, and a second for header + text) put ~50 MB/s of new ArrayBuffers in the young generation, which made
// V8 scavenge for "external memory pressure" every ~1.7 s instead of when the young generation fills
// (docs/performance-log.md, "The twelfth stretch").
import type { Socket as NetSocket } from 'node:net';
import { Adapter, type BroadcastOptions } from 'socket.io-adapter';
import type { Packet } from 'socket.io-parser';
import { RawJsonEncoder, rawEventParts } from './encoder.ts';

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
  encoder: { encode(packet: unknown): unknown[] };
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

/** The kept buffer grows up to this size; a larger frame (a long history, say) gets a buffer of its own. */
const SCRATCH_MAX = 1 << 20;

/**
 * A WebSocket text frame (server frames are not masked) written into a buffer kept for the next frame too. A
 * frame that a socket could not take at once stays referenced by its pending write: the buffer is then given up
 * to it (`done(frame, true)`) and the next frame gets a new one. A frame made while another is being written (a
 * write that broadcasts again) gets a buffer of its own.
 */
class FrameScratch {
  private buf = Buffer.allocUnsafeSlow(64 * 1024);
  private busy = false;

  /**
   * The frame of engine.io's message text (its packet type included), given as pieces written one after another,
   * valid until `done`. Each piece is written as it is: a concatenation would be flattened into a new string first.
   */
  frame(parts: readonly string[]): Buffer {
    let len = 0;
    for (const p of parts) len += Buffer.byteLength(p);
    const head = len < 126 ? 2 : len < 65_536 ? 4 : 10;
    let buf = this.buf;
    if (this.busy || head + len > SCRATCH_MAX) buf = Buffer.allocUnsafeSlow(head + len);
    else if (buf.length < head + len) buf = this.buf = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, 2 * (head + len)));
    if (buf === this.buf) this.busy = true;
    buf[0] = 0x81; // FIN, text
    if (head === 2) buf[1] = len;
    else if (head === 4) {
      buf[1] = 126;
      buf.writeUInt16BE(len, 2);
    } else {
      buf[1] = 127;
      buf.writeUInt32BE(0, 2);
      buf.writeUInt32BE(len, 6);
    }
    let at = head;
    for (const p of parts) at += buf.write(p, at, 'utf8');
    return buf.subarray(0, head + len);
  }

  /** The frame is written; `pinned`: a write of it is still pending, so its bytes must stay as they are. */
  done(frame: Buffer, pinned: boolean): void {
    if (frame.buffer !== this.buf.buffer) return;
    this.busy = false;
    if (pinned) this.buf = Buffer.allocUnsafeSlow(this.buf.length);
  }
}

export class FrameAdapter extends Adapter {
  /** Receivers written to directly and through socket.io, since the start (the fanout bench reads them). */
  readonly counts = { direct: 0, queued: 0 };

  private readonly scratch = new FrameScratch();

  override broadcast(packet: unknown, opts: BroadcastOptions): void {
    const flags = opts.flags ?? {};
    // Volatile packets are dropped by socket.io for a busy transport: its own path keeps that rule.
    if (flags.volatile) {
      super.broadcast(packet, opts);
      return;
    }
    const self = this as unknown as AdapterInternals;
    // Receivers that are not idle get the encoded packet through engine.io, which frames it when it sends it.
    const packetOpts = { preEncoded: true, compress: flags.compress };
    (packet as { nsp: string }).nsp = this.nsp.name;
    // A minute's text in the pieces it was made of (encoder.ts), encoded whole only for a receiver that is not idle.
    const raw = self.encoder instanceof RawJsonEncoder ? rawEventParts(packet as Packet) : null;
    let encoded: unknown[] | null = raw ? null : self.encoder.encode(packet);
    // Binary attachments (several packets): socket.io's own path for everyone.
    const parts = raw ?? (encoded?.length === 1 && typeof encoded[0] === 'string' ? ['4', encoded[0]] : null);
    let frame: Buffer | null = null;
    let pinned = false;
    try {
      self.apply(opts, (socket) => {
        socket.notifyOutgoingListeners?.(packet);
        const net = parts !== null ? idleSocket(socket.conn) : null;
        if (net && parts !== null) {
          frame ??= this.scratch.frame(parts);
          net.write(frame);
          // Not all taken by the kernel at once: the rest waits in the socket, pointing into the frame.
          if (net.writableLength > 0) pinned = true;
          this.counts.direct++;
        } else {
          encoded ??= self.encoder.encode(packet);
          socket.client.writeToEngine(encoded, packetOpts);
          this.counts.queued++;
        }
      });
    } finally {
      if (frame) this.scratch.done(frame, pinned);
    }
  }
}
