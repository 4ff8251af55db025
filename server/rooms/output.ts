// How a room reaches people: a small interface, implemented over socket.io (+ the plain feed) in
// production and by an in-memory recorder in tests.
import type { ServerToClient } from '../../shared/protocol/events.ts';
import type { Emit } from './commands.ts';

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

/** Records everything a room sends, for tests. */
export class MemoryOutput implements RoomOutput {
  readonly sent: { code: string; to: Channel; event: EventName; payload: unknown }[] = [];
  readonly placed: { code: string; playerId: number; teamId: number | null }[] = [];
  readonly dropped: { code: string; playerId: number }[] = [];
  readonly viewed: { code: string; playerId: number; from: Channel | null; to: Channel | null }[] = [];
  /** Kinds of channel nobody listens to (tests turn them off); everyone listens by default. */
  readonly deaf = new Set<Channel['kind']>();
  listens(_code: string, to: Channel): boolean {
    return !this.deaf.has(to.kind);
  }
  emit<E extends EventName>(code: string, to: Channel, event: E, payload: EventPayload<E>): void {
    this.sent.push({ code, to, event, payload });
  }
  placePlayer(code: string, playerId: number, teamId: number | null): void {
    this.placed.push({ code, playerId, teamId });
  }
  dropPlayer(code: string, playerId: number): void {
    this.dropped.push({ code, playerId });
  }
  viewPlayer(code: string, playerId: number, from: Channel | null, to: Channel | null): void {
    this.viewed.push({ code, playerId, from, to });
  }
  /** Payloads of one event, optionally to one kind of channel. */
  of<E extends EventName>(event: E, kind?: Channel['kind']): EventPayload<E>[] {
    return this.sent
      .filter((s) => s.event === event && (!kind || s.to.kind === kind))
      .map((s) => s.payload as EventPayload<E>);
  }
}

/** One message to its audience in room `code`. */
export function deliver<E extends EventName>(out: RoomOutput, code: string, m: Emit<E>): void {
  out.emit(code, m.to, m.event, m.payload);
}
