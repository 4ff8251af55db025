// A minimal socket.io client for the load generator: the engine.io v4 / socket.io v5 wire protocol over one
// `ws` WebSocket, nothing else (no reconnection, no buffering, no namespaces but "/", no binary). A full
// socket.io-client costs several times more CPU per message; the generator must measure the server, not itself.
//
// Frames: "0{…}" open, "2" ping → "3" pong, "40" connect → "40{…}", "42[event, arg]" an event,
// "42<id>[event, arg]" one that wants an ack, "43<id>[result]" the ack.
import type { Socket } from 'node:net';
import WebSocket from 'ws';

export type Handler = (arg: any, raw: string) => void;
/** A handler given the packet's text only, with its argument left unparsed (a generator reads a few fields). */
export type RawHandler = (raw: string) => void;

export class WireSocket {
  private acks = new Map<number, (result: any) => void>();
  private handlers = new Map<string, Handler>();
  private rawHandlers = new Map<string, RawHandler>();
  private nextAck = 0;
  /** Every frame received after the handshake (events of every kind, acks, pings) and their bytes. */
  framesIn = 0;
  bytesIn = 0;

  private constructor(private readonly ws: WebSocket) {}

  /** Opens the WebSocket, does the engine.io and socket.io handshakes, and resolves when connected. */
  static connect(httpUrl: string, timeoutMs = 60_000): Promise<WireSocket> {
    const url = `${httpUrl.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;
    // The server is our own: its frames need no UTF-8 check (ws would validate every text frame).
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    const s = new WireSocket(ws);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`no socket.io connection within ${timeoutMs} ms`)), timeoutMs);
      const fail = (e: Error) => {
        clearTimeout(timer);
        ws.terminate();
        reject(e);
      };
      ws.once('error', fail);
      ws.on('message', (data: Buffer) => {
        s.framesIn++;
        s.bytesIn += data.length;
        const text = data.toString();
        switch (text.charCodeAt(0)) {
          case 0x30: // "0": engine.io open
            ws.send('40');
            return;
          case 0x32: // "2": ping
            ws.send('3');
            return;
          case 0x34: // "4": a socket.io packet
            if (text.charCodeAt(1) === 0x34) fail(new Error(`socket.io refused the connection: ${text.slice(2)}`));
            else if (text.charCodeAt(1) === 0x30) {
              clearTimeout(timer);
              ws.off('error', fail);
              ws.on('error', () => {});
              resolve(s);
            } else s.packet(text);
            return;
        }
      });
      ws.once('close', () => fail(new Error('closed during the handshake')));
    });
  }

  private packet(text: string): void {
    const type = text.charCodeAt(1);
    if (type === 0x32) {
      // "42": an event
      const comma = text.indexOf('",', 4);
      const event = comma < 0 ? text.slice(4, -2) : text.slice(4, comma);
      const raw = this.rawHandlers.get(event);
      const handler = this.handlers.get(event);
      if (raw) raw(text);
      else if (handler) handler(comma < 0 ? undefined : JSON.parse(text.slice(comma + 2, -1)), text);
    } else if (type === 0x33) {
      // "43<id>[result]"
      const bracket = text.indexOf('[', 2);
      const id = Number(text.slice(2, bracket));
      const done = this.acks.get(id);
      this.acks.delete(id);
      done?.(JSON.parse(text.slice(bracket))[0]);
    }
  }

  /** One handler per event (the last one set wins). */
  on(event: string, handler: Handler): void {
    this.handlers.set(event, handler);
  }

  /** One raw handler per event, which takes the place of `on`'s. */
  onRaw(event: string, handler: RawHandler): void {
    this.rawHandlers.set(event, handler);
  }

  emit(event: string, arg: unknown): void {
    this.ws.send(`42${JSON.stringify([event, arg])}`);
  }

  /** An event with an acknowledgement: resolves with the server's answer. */
  request<T = any>(event: string, arg: unknown): Promise<T> {
    const id = this.nextAck++;
    return new Promise((resolve) => {
      this.acks.set(id, resolve);
      this.ws.send(`42${id}${JSON.stringify([event, arg])}`);
    });
  }

  /**
   * Stops reading this connection and returns its TCP socket, for another process to read from here on (the native
   * receiver, native.ts). Refuses if part of a frame has been read, which the other reader would not see.
   */
  handOver(): Socket {
    // ws's own fields: its TCP socket, and where its receiver is: between frames (state 0, GET_INFO) with nothing held.
    type Receiver = { _state: number; _bufferedBytes: number; _fragments: unknown[] };
    const ws = this.ws as unknown as { _socket: Socket; _receiver: Receiver };
    const socket = ws._socket;
    socket.pause();
    // A paused socket's handle goes on reading into the stream's buffer; stopped, it leaves the bytes in the kernel.
    const handle = (socket as unknown as { _handle: { reading: boolean; readStop(): number } | null })._handle;
    if (handle?.reading) {
      handle.reading = false;
      handle.readStop();
    }
    const r = ws._receiver;
    const held = socket.readableLength + r._bufferedBytes;
    if (held || r._state !== 0 || r._fragments.length)
      throw new Error(`a socket was handed over in the middle of a frame (${held} bytes of it read)`);
    return socket;
  }

  close(): void {
    this.ws.terminate();
  }
}
