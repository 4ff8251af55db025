// socket.io's packet encoder, taught one thing: an event whose argument is already JSON text (`rawJson`)
// is framed around that text instead of serialised again. socket.io encodes a broadcast once for all its
// receivers; this also spares re-serialising what the room already serialised (a snapshot's text is the one
// stored). Everything else goes through socket.io's own encoder unchanged; clients see ordinary JSON.
import type { Server } from 'socket.io';
import * as parser from 'socket.io-parser';

/**
 * An event argument given as JSON text. A plain object, not a class, so that it survives a cluster adapter
 * carrying the packet to another process (JSON or msgpack) and is recognised there too.
 */
export interface RawJson {
  readonly $json: string;
}

export const rawJson = (text: string): RawJson => ({ $json: text });

const isRaw = (x: unknown): x is RawJson =>
  typeof x === 'object' && x !== null && typeof (x as RawJson).$json === 'string';

export class RawJsonEncoder extends parser.Encoder {
  override encode(packet: parser.Packet): ReturnType<parser.Encoder['encode']> {
    const d: unknown = packet.data;
    if (
      packet.type === parser.PacketType.EVENT &&
      Array.isArray(d) &&
      d.length === 2 &&
      typeof d[0] === 'string' &&
      isRaw(d[1])
    ) {
      // As socket.io-parser writes it: type, namespace other than "/" and a comma, ack id, then the JSON.
      const nsp = packet.nsp && packet.nsp !== '/' ? `${packet.nsp},` : '';
      return [`${packet.type}${nsp}${packet.id ?? ''}[${JSON.stringify(d[0])},${d[1].$json}]`];
    }
    return super.encode(packet);
  }
}

/** The `parser` option of a socket.io Server that understands `rawJson`. */
export const rawJsonParser = { Encoder: RawJsonEncoder, Decoder: parser.Decoder };

/** Whether this server was built with `rawJsonParser` (a server without it gets ordinary payloads). */
export const encodesRawJson = (io: Pick<Server, 'encoder'>): boolean => io.encoder instanceof RawJsonEncoder;
