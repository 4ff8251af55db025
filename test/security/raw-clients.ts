// Clients that speak the wire protocols by hand, as an attacker's script would: a socket.io client over
// a bare WebSocket (it can stop reading, flood, skip acknowledgements), and a bare feed client.
import WebSocket from 'ws';

export interface RawClient {
  ws: WebSocket;
  /** Every text frame received, in order. */
  frames: string[];
  closed: Promise<number>;
  /** Stops reading from the TCP socket: what the server sends piles up. */
  stopReading(): void;
  resumeReading(): void;
}

function rawClient(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<RawClient> {
  const ws = new WebSocket(url, { headers, localAddress });
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(String(d)));
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  ws.on('error', () => {});
  return new Promise((resolve, reject) => {
    ws.once('open', () =>
      resolve({ ws, frames, closed, stopReading: () => ws.pause(), resumeReading: () => ws.resume() }),
    );
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

export interface RawSocketIo extends RawClient {
  /** The socket.io socket's id (the server's io.sockets.sockets key). */
  sid: string;
  /** Emits an event with an acknowledgement and resolves with it (reading must be on). */
  request(event: string, payload: unknown): Promise<any>;
  /** Emits an event without waiting: `ack` asks for an acknowledgement with that id. */
  emit(event: string, payload: unknown, ack?: number): void;
}

/** A socket.io client on the websocket transport, connected to the main namespace (from `localAddress`, a loopback address, if given). */
export async function rawSocketIo(
  serverUrl: string,
  headers: Record<string, string> = {},
  localAddress?: string,
): Promise<RawSocketIo> {
  const c = await rawClient(
    `${serverUrl.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`,
    headers,
    localAddress,
  );
  const waitFor = (pred: (f: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const found = c.frames.find(pred);
      if (found) return resolve(found);
      const closed = () => reject(new Error('closed'));
      const on = (d: unknown) => {
        if (pred(String(d))) {
          c.ws.off('message', on);
          c.ws.off('close', closed);
          resolve(String(d));
        }
      };
      c.ws.on('message', on);
      c.ws.once('close', closed);
    });
  await waitFor((f) => f.startsWith('0{'));
  c.ws.send('40');
  const connected = await waitFor((f) => f.startsWith('40'));
  let nextId = 1000;
  const emit = (event: string, payload: unknown, ack?: number) =>
    c.ws.send(`42${ack ?? ''}${JSON.stringify([event, payload])}`);
  return {
    ...c,
    sid: JSON.parse(connected.slice(2)).sid,
    emit,
    async request(event, payload) {
      const id = nextId++;
      emit(event, payload, id);
      const frame = await waitFor((f) => f.startsWith(`43${id}[`));
      return JSON.parse(frame.slice(`43${id}`.length))[0];
    },
  };
}

export function rawFeed(serverUrl: string, code: string, headers: Record<string, string> = {}): Promise<RawClient> {
  return rawClient(`${serverUrl.replace('http', 'ws')}/api/rooms/${code}/feed`, headers);
}
