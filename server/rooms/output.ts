// How a room reaches people: the channels of a room, the events sent on them, and the small interface a room sends
// through (socket.io and the plain feed in the server, a recorder in tests).
import type { ServerToClient } from '../../shared/protocol/events.ts';

export type Channel =
  | { kind: 'all' }
  /** Everyone in the room but the teacher: students, observers, the feed. */
  | { kind: 'public' }
  | { kind: 'team'; teamId: number }
  | { kind: 'teacher' }
  | { kind: 'observers' }
  | { kind: 'player'; playerId: number }
  /** The students of a team who hold exactly this set of roles (split-view.ts: `viewKey`; '' for analysts). */
  | { kind: 'view'; teamId: number; view: string };

export type EventName = keyof ServerToClient;
export type EventPayload<E extends EventName> = Parameters<ServerToClient[E]>[0];

export interface RoomOutput {
  emit<E extends EventName>(code: string, to: Channel, event: E, payload: EventPayload<E>): void;
  /** False when nobody can receive what is sent to `to`: a payload built only for them need not be built. */
  listens?(code: string, to: Channel): boolean;
  /**
   * A player's sockets follow them to their (new) team's channel; null: no team. `teamIds`: every team of the
   * room, whose channels the sockets leave (on every process: the sockets may be connected to another one).
   */
  placePlayer(code: string, playerId: number, teamId: number | null, teamIds: readonly number[]): void;
  /** Disconnects a removed player's sockets. */
  dropPlayer(code: string, playerId: number): void;
  /** A player's sockets leave one view channel and join another (split-view.ts); null: none. */
  viewPlayer(
    code: string,
    playerId: number,
    from: Extract<Channel, { kind: 'view' }> | null,
    to: Extract<Channel, { kind: 'view' }> | null,
  ): void;
}

/** One event to one channel. */
export interface Emit<E extends EventName> {
  kind: 'emit';
  to: Channel;
  event: E;
  payload: EventPayload<E>;
}

export function emit<E extends EventName>(to: Channel, event: E, payload: EventPayload<E>): Emit<E> {
  return { kind: 'emit', to, event, payload };
}
