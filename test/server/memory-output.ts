// A RoomOutput that records everything a room sends, for tests of rooms without sockets.
import type { Channel, EventName, EventPayload, RoomOutput } from '../../server/rooms/output.ts';

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
