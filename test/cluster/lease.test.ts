// The lease per room clock against a real Redis (started on loopback by server/cluster/services.ts). Two
// connections with two node names stand for two Opsroom processes. Expiry is forced with PEXPIRE instead of
// waited for; the keeper's timers run on the ManualClock.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RoomLeases, type Lease } from '../../server/cluster/lease.ts';
import { startRedis, type RedisService } from '../../server/cluster/services.ts';
import { ManualClock } from '../../server/lib/clock.ts';

const TTL = 9_000;
let server: RedisService;
let clients: Redis[] = [];
let clock: ManualClock;

const connect = () => {
  const c = new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
};
const leasesFor = (node: string, client = connect()) => new RoomLeases(client, { node, ttlMs: TTL, clock });
/** Lets the lease key's time to live run out now (the same as waiting TTL ms, without the wait). */
const expire = (room: string) => clients[0].pexpire(`opsroom:lease:{${room}}`, 0);
const pttl = (room: string) => clients[0].pttl(`opsroom:lease:{${room}}`);

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  clock = new ManualClock();
  await connect().flushall();
});
afterEach(() => {
  for (const c of clients) c.disconnect();
  clients = [];
});

describe('a room lease', () => {
  it('goes to the first process that asks, with token 1, for the time to live', async () => {
    const a = leasesFor('node-a');
    const b = leasesFor('node-b');
    const lease = await a.acquire('ROOM1');
    expect(lease).toEqual({ room: 'ROOM1', node: 'node-a', token: 1, validUntil: clock.now() + TTL });
    expect(await b.acquire('ROOM1')).toBeNull();
    const holder = await b.holder('ROOM1');
    expect(holder).toMatchObject({ node: 'node-a', token: 1 });
    expect(holder!.ttlMs).toBeGreaterThan(0);
    expect(holder!.ttlMs).toBeLessThanOrEqual(TTL);
    // Other rooms are independent.
    expect(await b.acquire('ROOM2')).toMatchObject({ node: 'node-b', token: 1 });
  });

  it('is renewed by its holder, and the renewal restores the full time to live', async () => {
    const a = leasesFor('node-a');
    const lease = (await a.acquire('ROOM1'))!;
    await clients[0].pexpire('opsroom:lease:{ROOM1}', 500);
    clock.advance(2_000);
    const renewed = await a.renew(lease);
    expect(renewed).toEqual({ ...lease, validUntil: clock.now() + TTL });
    expect(await pttl('ROOM1')).toBeGreaterThan(TTL / 2);
  });

  it('cannot be renewed or released by a stranger, even one that knows the token', async () => {
    const a = leasesFor('node-a');
    const b = leasesFor('node-b');
    const lease = (await a.acquire('ROOM1'))!;
    const forged: Lease = { ...lease, node: 'node-b' };
    expect(await b.renew(forged)).toBeNull();
    expect(await b.release(forged)).toBe(false);
    expect(await b.holder('ROOM1')).toMatchObject({ node: 'node-a', token: 1 });
  });

  it('after expiry goes to another process with a higher token; the old holder can neither renew nor release it', async () => {
    const a = leasesFor('node-a');
    const b = leasesFor('node-b');
    const old = (await a.acquire('ROOM1'))!;
    await expire('ROOM1');
    const taken = (await b.acquire('ROOM1'))!;
    expect(taken.token).toBeGreaterThan(old.token);
    expect(await a.renew(old)).toBeNull();
    expect(await a.release(old)).toBe(false);
    expect(await a.holder('ROOM1')).toMatchObject({ node: 'node-b', token: taken.token });
  });

  it('hands out ever higher tokens, also to the same process after a release, and the older lease stays dead', async () => {
    const a = leasesFor('node-a');
    const first = (await a.acquire('ROOM1'))!;
    expect(await a.release(first)).toBe(true);
    expect(await a.holder('ROOM1')).toBeNull();
    const second = (await a.acquire('ROOM1'))!;
    expect(second.token).toBe(first.token + 1);
    expect(await a.renew(first)).toBeNull();
    expect(await a.lastToken('ROOM1')).toBe(second.token);
  });

  it('keeps tokens above what the database stored when Redis lost its counter', async () => {
    const a = leasesFor('node-a');
    expect((await a.acquire('ROOM1'))!.token).toBe(1);
    await clients[0].flushall(); // Redis restarted without persistence
    const lease = (await a.acquire('ROOM1', { atLeast: 41 }))!;
    expect(lease.token).toBe(42);
    await a.release(lease);
    expect((await a.acquire('ROOM1', { atLeast: 3 }))!.token).toBe(43);
    await expect(a.acquire('ROOM1', { atLeast: -1 })).rejects.toThrow(/non-negative/);
  });

  it('goes to exactly one of many processes asking at once', async () => {
    const nodes = Array.from({ length: 12 }, (_, i) => leasesFor(`node-${i}`));
    const results = await Promise.all(nodes.map((n) => n.acquire('ROOM1')));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.token).toBe(1);
    expect(await nodes[0].holder('ROOM1')).toMatchObject({ node: winners[0]!.node });
  });

  it('refuses node names it could not tell apart and times to live too short to renew', () => {
    const c = connect();
    expect(() => new RoomLeases(c, { node: 'a#b' })).toThrow(/without '#'/);
    expect(() => new RoomLeases(c, { node: '' })).toThrow(/non-empty/);
    expect(() => new RoomLeases(c, { node: 'a', ttlMs: 1.5 })).toThrow(/integer/);
  });
});

describe('a kept lease', () => {
  it('is renewed every third of its time to live and stays valid', async () => {
    const a = leasesFor('node-a');
    const lost: string[] = [];
    const keeper = a.keep((await a.acquire('ROOM1'))!, (_l, why) => lost.push(why));
    for (let i = 0; i < 6; i++) {
      await clients[0].pexpire('opsroom:lease:{ROOM1}', 1_000); // as if time had passed in Redis too
      clock.advance(TTL / 3);
      await keeper.settled();
      expect(await pttl('ROOM1')).toBeGreaterThan(TTL / 2);
      expect(keeper.valid()).toBe(true);
      expect(keeper.current.validUntil).toBe(clock.now() + TTL);
    }
    expect(lost).toEqual([]);
    await keeper.stop({ release: true });
    expect(keeper.valid()).toBe(false);
    expect(await a.holder('ROOM1')).toBeNull();
  });

  it('is lost at the next renewal once another process took it, and says so once', async () => {
    const a = leasesFor('node-a');
    const b = leasesFor('node-b');
    const lost: string[] = [];
    const keeper = a.keep((await a.acquire('ROOM1'))!, (_l, why) => lost.push(why));
    await expire('ROOM1');
    const taken = (await b.acquire('ROOM1'))!;
    clock.advance(TTL / 3);
    await keeper.settled();
    expect(lost).toEqual(['another process holds the lease']);
    expect(keeper.valid()).toBe(false);
    clock.advance(TTL * 3);
    await keeper.settled();
    expect(lost).toHaveLength(1);
    // Stopping with release does not free the new holder's lease.
    await keeper.stop({ release: true });
    expect(await b.holder('ROOM1')).toMatchObject({ node: 'node-b', token: taken.token });
  });

  it('lapses when Redis cannot be reached until its validity runs out, and is held again once Redis answers', async () => {
    const client = connect();
    const a = leasesFor('node-a', client);
    const lost: string[] = [];
    const sure: boolean[] = [];
    const keeper = a.keep((await a.acquire('ROOM1'))!, {
      lost: (_l, why) => lost.push(why),
      sure: (held) => sure.push(held),
    });
    client.disconnect();
    clock.advance(TTL / 3);
    await keeper.settled();
    clock.advance(TTL / 3);
    await keeper.settled();
    expect(keeper.valid()).toBe(true);
    clock.advance(TTL / 3);
    await keeper.settled();
    // Not sure any more — nothing may be committed under it — but not lost either: nobody else said they hold it.
    expect(keeper.valid()).toBe(false);
    expect(keeper.lapsed).toBe(true);
    expect(lost).toEqual([]);
    expect(sure).toEqual([false]);
    // Redis answers again, the lease still ours there: renewed, sure again.
    await client.connect();
    expect(await keeper.confirm()).toBe(true);
    expect(keeper.valid()).toBe(true);
    expect(sure).toEqual([false, true]);
    await keeper.stop();
  });

  it('ran out meanwhile: taken again through `retake` if the room is still its own, else lost', async () => {
    const a = leasesFor('node-a');
    const b = leasesFor('node-b');
    const retakes: number[] = [];
    const lost: string[] = [];
    const first = (await a.acquire('ROOM1'))!;
    let allow = true;
    const keeper = a.keep(first, {
      lost: (_l, why) => lost.push(why),
      retake: async (old) => {
        retakes.push(old.token);
        return allow ? a.acquire(old.room, { atLeast: old.token }) : null;
      },
    });
    await expire('ROOM1');
    expect(await keeper.confirm()).toBe(true);
    expect(retakes).toEqual([first.token]);
    expect(keeper.current.token).toBeGreaterThan(first.token);
    expect(lost).toEqual([]);
    // Another time the room is found another process's (its fence moved): lost, and said why.
    allow = false;
    await expire('ROOM1');
    expect(await keeper.confirm()).toBe(false);
    expect(lost).toEqual(['another process took the room while its lease could not be renewed']);
    // Held by another process: lost with that reason (a keeper of b's, whose lease a takes meanwhile).
    const bLost: string[] = [];
    const bKeeper = b.keep((await b.acquire('ROOM2'))!, (_l, why) => bLost.push(why));
    await expire('ROOM2');
    await a.acquire('ROOM2');
    expect(await bKeeper.confirm()).toBe(false);
    expect(bLost).toEqual(['another process holds the lease']);
    await keeper.stop();
    await bKeeper.stop();
  });
});
