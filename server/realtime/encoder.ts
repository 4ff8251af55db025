// socket.io's packet encoder, taught one thing: an event whose argument is already JSON text (`rawJson`)
// is framed around that text instead of serialised again. socket.io encodes a broadcast once for all its
// receivers; this also spares re-serialising what the room already serialised (a snapshot's text is the one
// stored). Everything else goes through socket.io's own encoder unchanged; clients see ordinary JSON.
import type { Server } from 'socket.io';
import * as parser from 'socket.io-parser';

/**
 * An event argument given as JSON text, whole or in pieces (their concatenation: a minute's text as made, views.ts).
 * A plain object, not a class, so that it survives a cluster adapter carrying the packet to another process (JSON
 * or msgpack) and is recognised there too.
 */
export type RawJson = { readonly $json: string } | { readonly $parts: readonly string[] };

export const rawJson = (text: string): RawJson => ({ $json: text });
export const rawJsonParts = (parts: readonly string[]): RawJson => ({ $parts: parts });

const isRaw = (x: unknown): x is RawJson =>
  typeof x === 'object' &&
  x !== null &&
  (typeof (x as { $json?: unknown }).$json === 'string' ||
    (Array.isArray((x as { $parts?: unknown }).$parts) &&
      (x as { $parts: unknown[] }).$parts.every((p) => typeof p === 'string')));

/**
 * A raw event's text in pieces after `prefix`, as socket.io-parser writes it: packet type, namespace other than "/"
 * and a comma, ack id, then the event and its JSON. Null for any other packet.
 */
function rawPieces(packet: parser.Packet, prefix: string): string[] | null {
  const d: unknown = packet.data;
  if (
    packet.type !== parser.PacketType.EVENT ||
    !Array.isArray(d) ||
    d.length !== 2 ||
    typeof d[0] !== 'string' ||
    !isRaw(d[1])
  )
    return null;
  const raw = d[1];
  const nsp = packet.nsp && packet.nsp !== '/' ? `${packet.nsp},` : '';
  const head = `${prefix}${packet.type}${nsp}${packet.id ?? ''}[${JSON.stringify(d[0])},`;
  return '$json' in raw ? [head, raw.$json, ']'] : [head, ...raw.$parts, ']'];
}

/**
 * A raw event as engine.io's message text (socket.io packet type included) in pieces, for a frame written piece by
 * piece (frames.ts); null for any other packet.
 */
export const rawEventParts = (packet: parser.Packet): readonly string[] | null => rawPieces(packet, '4');

export class RawJsonEncoder extends parser.Encoder {
  override encode(packet: parser.Packet): ReturnType<parser.Encoder['encode']> {
    // Joined here, for a receiver that takes socket.io's own path (or a cluster adapter's).
    const pieces = rawPieces(packet, '');
    return pieces ? [pieces.join('')] : super.encode(packet);
  }
}

/** The `parser` option of a socket.io Server that understands `rawJson`. */
export const rawJsonParser = { Encoder: RawJsonEncoder, Decoder: parser.Decoder };

/** Whether this server was built with `rawJsonParser` (a server without it gets ordinary payloads). */
export const encodesRawJson = (io: Pick<Server, 'encoder'>): boolean => io.encoder instanceof RawJsonEncoder;
