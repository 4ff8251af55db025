// The rooms' side of ownership, on SQLite and a manual clock with a hand-driven Ownership: every commit of an owned
// room carries its fence; a room whose lease is not surely held commits nothing, leaves the process and tells nobody
// of a failed minute; a room taken right after its owner died goes on running, one taken later resumes paused.
import { describe, expect, it } from 'vitest';
import type { RoomRecord } from '../../server/db/records.ts';
import type { Write } from '../../server/db/writes.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import { type GuardEvents, NotOwnerError, type Ownership, type RoomGuard } from '../../server/rooms/ownership.ts';
import { roomEnv } from '../server/rooms.ts';

/** An Ownership whose leases the test holds or loses by hand. */
function handOwnership(opts: { recent?: boolean; claimed?: Promise<void> } = {}) {
  const state = { valid: true, token: 1, released: [] as string[], adopted: [] as string[], lost: [] as string[] };
  const events = new Map<string, GuardEvents>();
  const guard = (code: string, ev: GuardEvents): RoomGuard => {
    events.set(code, ev);
    return handGuard(code, (reason) => ev.lost(reason));
  };
  const handGuard = (code: string, onLost: (reason: string) => void): RoomGuard => ({
    seal(roomId: number, writes: readonly Write[]) {
      if (!state.valid) throw new NotOwnerError(code, 'its lease ran out');
      return writes.length ? [...writes, { op: 'fence', roomId, token: state.token, at: 1 }] : writes;
    },
    lost(reason) {
      state.lost.push(reason);
      onLost(reason);
    },
    async release() {
      state.released.push(code);
    },
  });
  const ownership: Ownership = {
    async claimNew(code, ev) {
      return guard(code, ev);
    },
    async claim(row: RoomRecord, ev) {
      await opts.claimed;
      return { guard: guard(row.code, ev), row, recent: opts.recent ?? false };
    },
    async adopted(room) {
      state.adopted.push(room.code);
    },
  };
  return { ownership, state, events };
}

describe('an owned room', () => {
  it('commits with its fence; once its lease is not surely held it commits nothing, leaves, and says nothing', async () => {
    const env = roomEnv();
    const { ownership, state } = handOwnership();
    const manager = new RoomManager(env.manager.deps, env.manager.limits, ownership);
    const { room } = await manager.create({ teamCount: 1, tempo: 1, minutes: 10, seed: 3 });
    await room.dispatch({ type: 'clock', action: 'start' });
    env.clock.advance(1000);
    await manager.settled();
    expect(await env.store.roomById(room.id)).toMatchObject({ fence: 1, fencedAt: 1 });
    expect(env.store.transactions.flat().every((list) => list.some((w) => w.op === 'fence'))).toBe(true);
    expect((await env.store.roundById(room.round.id))!.minute).toBe(1);

    state.valid = false;
    const sent = env.out.sent.length;
    env.clock.advance(1000);
    await room.settled();
    expect((await env.store.roundById(room.round.id))!.minute).toBe(1);
    expect(manager.peek(room.code)).toBeUndefined();
    expect(state.lost).toEqual(['its lease ran out']);
    // No minute, no TICK_FAILED notice: the room is simply somewhere else now.
    expect(env.out.sent.slice(sent)).toEqual([]);
    expect(env.errors).toEqual([]);
    await expect(room.dispatch({ type: 'clock', action: 'pause' })).rejects.toBeInstanceOf(NotOwnerError);
    await manager.close();
  });

  it('while its owner cannot be sure of it, holds its clock and refuses inputs; then goes on where it was', async () => {
    const env = roomEnv();
    const { ownership, events } = handOwnership();
    const manager = new RoomManager(env.manager.deps, env.manager.limits, ownership);
    const { room } = await manager.create({ teamCount: 1, tempo: 2, minutes: 10, seed: 3 });
    const student = await room.dispatch({ type: 'join', name: 'Ana', tokenHash: 'h'.repeat(64) });
    await room.dispatch({ type: 'clock', action: 'start' });
    env.clock.advance(2000);
    await manager.settled();
    expect(room.round.minute).toBe(1);

    // Redis out of reach: held. Minutes stop, a change is refused (nothing stored), nobody is told of a failed minute.
    events.get(room.code)?.sure(false);
    const sent = env.out.sent.length;
    const transactions = env.store.transactions.length;
    env.clock.advance(20_000);
    await manager.settled();
    await expect(
      room.dispatch({ type: 'control', playerId: student.id, key: 'servers', value: 9 }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(room.round.minute).toBe(1);
    expect(env.store.transactions.length).toBe(transactions);
    expect(env.out.sent.slice(sent)).toEqual([]);
    expect(env.errors).toEqual([]);
    expect(manager.peek(room.code)).toBe(room);

    // Sure again: the last minute once more (it may not have reached every process), the next a tempo later.
    events.get(room.code)?.sure(true);
    expect(
      env.out.sent
        .slice(sent)
        .filter((m) => m.event === 'minute')
        .map((m) => (m.payload as any).snapshot.minute),
    ).toEqual([1]);
    env.clock.advance(1999);
    await manager.settled();
    expect(room.round.minute).toBe(1);
    env.clock.advance(1);
    await manager.settled();
    expect(room.round.minute).toBe(2);
    await room.dispatch({ type: 'control', playerId: student.id, key: 'servers', value: 9 });
    await manager.close();
  });

  it('gives its lease up when it leaves memory or the process stops', async () => {
    const env = roomEnv();
    const { ownership, state } = handOwnership();
    const manager = new RoomManager(env.manager.deps, env.manager.limits, ownership);
    const idle = (await manager.create({ teamCount: 1 })).room;
    const busy = (await manager.create({ teamCount: 1, tempo: 20, minutes: 240 })).room;
    await busy.dispatch({ type: 'clock', action: 'start' });
    env.clock.advance(31 * 60_000);
    await manager.settled();
    expect(manager.sweep(30 * 60_000)).toBe(1);
    expect(state.released).toEqual([idle.code]);
    await manager.close();
    expect(state.released).toEqual([idle.code, busy.code]);
  });
});

describe('a room taken from another process', () => {
  async function runningRoomIn(env: ReturnType<typeof roomEnv>) {
    const plain = env.manager;
    const { room } = await plain.create({ teamCount: 2, tempo: 2, minutes: 10, seed: 8 });
    await room.dispatch({ type: 'clock', action: 'start' });
    env.clock.advance(2000);
    await plain.settled();
    // Its process "dies": the room stays running in the database, nobody ticks it.
    plain.sweep(-1);
    room.dispose();
    return room.code;
  }

  it('right after its owner died, goes on running from its last stored minute', async () => {
    const env = roomEnv();
    const code = await runningRoomIn(env);
    const { ownership, state } = handOwnership({ recent: true });
    const manager = new RoomManager(env.manager.deps, env.manager.limits, ownership);
    const sent = env.out.sent.length;
    const room = await manager.get(code);
    expect(room.round).toMatchObject({ state: 'running', minute: 1 });
    expect(state.adopted).toEqual([code]);
    // Its last stored minute once more, to every team, the teacher and the observers: the dead owner may not have sent it.
    const again = env.out.sent.slice(sent);
    expect(
      again
        .filter((m) => m.event === 'minute')
        .map((m) => (m.payload as { snapshot: { minute: number } }).snapshot.minute),
    ).toEqual([1, 1]);
    expect(
      again
        .filter((m) => m.event === 'room:minute' || m.event === 'summary')
        .map((m) => (m.payload as { minute: number }).minute),
    ).toEqual([1, 1]);
    env.clock.advance(2000);
    await manager.settled();
    expect(room.round.minute).toBe(2);
    expect((await env.store.roundById(room.round.id))!.minute).toBe(2);
    await manager.close();
  });

  it('long after (every process was down), resumes paused as after a restart', async () => {
    const env = roomEnv();
    const code = await runningRoomIn(env);
    const { ownership } = handOwnership({ recent: false });
    const manager = new RoomManager(env.manager.deps, env.manager.limits, ownership);
    const sent = env.out.sent.length;
    const room = await manager.get(code);
    expect(room.round).toMatchObject({ state: 'paused', minute: 1 });
    expect(env.out.sent.slice(sent).map((m) => m.event)).not.toContain('minute');
    env.clock.advance(10_000);
    await manager.settled();
    expect(room.round.minute).toBe(1);
    await manager.close();
  });

  it('when the process begins to stop while taking it, is closed with the others, and nothing is taken after', async () => {
    const env = roomEnv();
    const code = await runningRoomIn(env);
    let claimed!: () => void;
    const { ownership, state } = handOwnership({ recent: true, claimed: new Promise((r) => (claimed = r)) });
    const manager = new RoomManager(env.manager.deps, env.manager.limits, ownership);
    const taking = manager.get(code);
    await new Promise((r) => setImmediate(r));
    expect(manager.held(code)).toBeInstanceOf(Promise);
    const closing = manager.close();
    claimed();
    const room = await taking;
    await closing;
    expect(manager.all()).toEqual([]);
    expect(state.released).toEqual([code]);
    const transactions = env.store.transactions.length;
    env.clock.advance(10_000);
    await room.settled();
    expect(env.store.transactions.length).toBe(transactions);
    // Asked once the stop began: a transient error, nothing loaded, nothing created.
    const refused = { code: 'STORAGE_FAILED', message: expect.stringMatching(/stopping/) };
    await expect(manager.get(code)).rejects.toMatchObject(refused);
    await expect(manager.create({ teamCount: 1 })).rejects.toMatchObject(refused);
  });
});
