// A graceful stop that says what it did: running rounds paused (and so stored as paused), every
// socket told why it is about to close, the feeds closed, the database closed. In cluster mode running
// rounds are not paused but handed over: their leases are released and other processes take them at once.
import type { FastifyInstance } from 'fastify';
import { NoticeCode } from '../../shared/protocol/errors.ts';
import type { ProtocolNotice } from '../../shared/protocol/types.ts';

export interface StopReport {
  roundsPaused: number;
  /** Cluster mode: running rounds left running for another process to take. */
  roundsHandedOver?: number;
  /** Rounds that could not be marked paused (they resume paused at the next start anyway). */
  pauseFailed: number;
  socketsTold: number;
  feedsClosed: number;
}

export async function stopGracefully(app: FastifyInstance): Promise<StopReport> {
  // From the first moment of the stop, no room is taken here: not one another process releases meanwhile (cluster
  // mode), nor one a reconnecting page asks for while the sockets are being told.
  await app.cluster?.halt();
  app.rooms.stopTaking();
  let roundsPaused = 0;
  let pauseFailed = 0;
  const handedOver = app.cluster ? app.rooms.all().filter((r) => r.round.state === 'running').length : 0;
  for (const room of app.cluster ? [] : app.rooms.all()) {
    if (room.round.state !== 'running') continue;
    try {
      // The teacher's own pause: timer cleared, state stored, everyone in the room sees it.
      await room.dispatch({ type: 'clock', action: 'pause' });
      roundsPaused++;
    } catch (err) {
      pauseFailed++;
      app.log.error({ err, room: room.code }, 'could not pause the round while stopping');
    }
  }
  const message = app.cluster
    ? 'this server is stopping: another one goes on with the rounds; this page reconnects'
    : 'the server is stopping: rounds are paused and kept; this page reconnects when it is back';
  const socketsTold = await tellEverySocket(app, { code: NoticeCode.SERVER_STOPPING, message });
  const feedsClosed = app.feed.count();
  // preClose disconnects the sockets (after their queued notice) and closes the feeds; onClose the database.
  await app.close();
  return {
    roundsPaused,
    pauseFailed,
    socketsTold,
    feedsClosed,
    ...(app.cluster ? { roundsHandedOver: handedOver } : {}),
  };
}

/**
 * Sends a notice to every socket and waits (at most `ms`) until each connection has handed it to the
 * network: closing discards what is still queued, e.g. for a long-polling client between two polls.
 */
async function tellEverySocket(app: FastifyInstance, notice: ProtocolNotice, ms = 2000): Promise<number> {
  const sockets = [...app.io.sockets.sockets.values()];
  // engine.io emits 'drain' when its queue is written out (at once for an idle websocket).
  const drained = Promise.all(sockets.map((s) => new Promise<void>((r) => s.conn.once('drain', () => r()))));
  // This process's sockets only: in cluster mode the others' servers go on.
  app.io.local.emit('notice', notice);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([drained, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
  return sockets.length;
}

export function describeStop(r: StopReport, database: string): string {
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const failed = r.pauseFailed ? ` (${n(r.pauseFailed, 'round')} could not be marked paused)` : '';
  const rounds =
    r.roundsHandedOver !== undefined
      ? `${n(r.roundsHandedOver, 'running round')} handed over to the other processes`
      : `${n(r.roundsPaused, 'running round')} paused and stored${failed}`;
  return `stopped: ${rounds}, ${n(r.socketsTold, 'socket')} told, ${n(r.feedsClosed, 'feed')} closed, database ${database} closed`;
}
