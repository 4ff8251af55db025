// How a room reaches people over the network: RoomOutput on socket.io's rooms, mirroring what everyone and the
// observers get to the plain feed. Sending only: what sockets ask for comes in through inbound.ts.
import type { Metrics } from '../lib/metrics.ts';
import { noMetrics } from '../lib/metrics.ts';
import type { EventName, EventPayload, RoomOutput } from '../rooms/output.ts';
import { ch, channelName, type IoServer } from './channels.ts';
import type { FeedMessage } from './feed.ts';

/**
 * Where the feed's messages go: this process's feed clients, or in cluster mode the room's feed channel, whose
 * `count` is not known here (clients of other processes) and so is never 0.
 */
export interface FeedSink {
  send(code: string, msg: FeedMessage): void;
  count(code?: string): number;
}

/** RoomOutput over socket.io rooms (the in-memory adapter, or in cluster mode the Redis adapter) and the feed. */
export function socketOutput(io: IoServer, feed: FeedSink, opts: { cluster: boolean; metrics?: Metrics }): RoomOutput {
  const metrics = opts.metrics ?? noMetrics;
  /** Sockets of this process in a channel (adapter.rooms is this process's). */
  const here = (name: string) => io.of('/').adapter.rooms.get(name)?.size ?? 0;
  return {
    listens(code, to) {
      // In cluster mode the receivers may be connected to another process.
      if (opts.cluster) return true;
      // The feed mirrors what everyone and the observers get.
      if ((to.kind === 'all' || to.kind === 'public' || to.kind === 'observers') && feed.count(code) > 0) return true;
      return here(channelName(code, to)) > 0;
    },
    emit<E extends EventName>(code: string, to: Parameters<RoomOutput['emit']>[1], event: E, payload: EventPayload<E>) {
      const name = channelName(code, to);
      const receivers = here(name) - (to.kind === 'public' ? here(ch.teacher(code)) : 0);
      // Nothing to encode for nobody (here, or anywhere in cluster mode).
      if (receivers > 0 || opts.cluster) {
        // Everyone but the teacher: the room without its secrets.
        const target = to.kind === 'public' ? io.to(name).except(ch.teacher(code)) : io.to(name);
        (target.emit as (e: string, p: unknown) => void)(event, payload);
      }
      metrics.sent(event, receivers);
      if (feed.count(code) === 0) return;
      if (to.kind === 'observers' && event === 'summary') feed.send(code, { type: 'summary', ...(payload as object) });
      if (to.kind === 'public' && event === 'room') feed.send(code, { type: 'room', room: payload });
      if ((to.kind === 'all' || to.kind === 'observers') && event === 'presence')
        feed.send(code, { type: 'presence', ...(payload as object) });
      if (to.kind === 'all' && event === 'scores') feed.send(code, { type: 'scores', ...(payload as object) });
    },
    // Through the adapter, so that a player's sockets on every process follow (in order with later broadcasts).
    placePlayer(code, playerId, teamId, teamIds) {
      const sockets = io.in(ch.player(code, playerId));
      const others = teamIds.filter((id) => id !== teamId).map((id) => ch.team(code, id));
      if (others.length) sockets.socketsLeave(others);
      if (teamId !== null) sockets.socketsJoin(ch.team(code, teamId));
    },
    dropPlayer(code, playerId) {
      io.in(ch.player(code, playerId)).disconnectSockets(true);
    },
    viewPlayer(code, playerId, from, to) {
      const sockets = io.in(ch.player(code, playerId));
      if (from) sockets.socketsLeave(channelName(code, from));
      if (to) sockets.socketsJoin(channelName(code, to));
    },
  };
}
