// The cluster behind Caddy, as `npm run cluster` and the compose file run it (deploy/Caddyfile): the teacher and
// the students all use Caddy's one address, from one source address (a school behind one NAT) and yet spread over
// both processes; long-polling pages stay on their process by Caddy's cookie. The room's owner is killed mid-round;
// its pages reconnect by themselves, through the same address, to the other process, join again with their tokens,
// and the round goes on there with every minute and every acknowledged change.
import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCaddy, type CaddyService } from '../../server/cluster/services.ts';
import type { ChangeRecord, RoomView, TeamMinute } from '../../shared/protocol/types.ts';
import { collect, createRoomAt, ok, sample, until, type Client } from '../server/helpers.ts';
import { testCluster, type Node } from './nodes.ts';

const MINUTES = 10;
const TEMPO_MS = 2000;
const cluster = testCluster('caddy');
let nodes: Node[];
let caddy: CaddyService;

beforeAll(async () => {
  await cluster.services();
  // Each process looks for rooms nobody holds only when the test asks.
  nodes = await Promise.all([cluster.start('a', { SCAN_MS: '3600000' }), cluster.start('b', { SCAN_MS: '3600000' })]);
  caddy = await startCaddy(nodes.map((n) => n.url.replace('http://', '')));
});
afterAll(async () => {
  for (const p of pages) p.client.disconnect();
  await caddy?.stop();
});

/** A page as the web app opens one: through Caddy, reconnecting by itself, joining again on every connect. */
interface Page {
  client: Client;
  /** Every join's answer, the first and each after a reconnection. */
  joins: any[];
  minutes: TeamMinute[];
  disconnects: number;
}
const pages: Page[] = [];

function open(transport: 'websocket' | 'polling', join: (p: Page) => Promise<any>): Promise<Page> {
  const client: Client = ioClient(caddy.url, {
    transports: [transport],
    // In Node, socket.io keeps cookies (Caddy's) only with credentials, as a browser does.
    withCredentials: true,
    forceNew: true,
    reconnectionDelay: 100,
    reconnectionDelayMax: 500,
  });
  const page: Page = { client, joins: [], minutes: collect(client, 'minute'), disconnects: 0 };
  client.on('disconnect', () => page.disconnects++);
  pages.push(page);
  return new Promise((resolve, reject) => {
    // A page that cannot hold a session through Caddy (a long-polling request sent to the other process) keeps
    // failing to connect: said at once rather than at the test's timeout.
    const errors: string[] = [];
    client.on('connect_error', (e) => errors.push(e.message));
    const timer = setTimeout(
      () => page.joins.length || reject(new Error(`no join in 10 s through Caddy: ${errors.join('; ')}`)),
      10_000,
    );
    client.on('connect', () => {
      join(page).then((j) => {
        page.joins.push(j);
        if (page.joins.length > 1) return;
        clearTimeout(timer);
        resolve(page);
      }, reject);
    });
  });
}

/** Student sockets on each process, as its own /metrics tells (asked directly, from this machine). */
async function studentsOn(node: Node): Promise<number> {
  return sample(await (await fetch(`${node.url}/metrics`)).text(), 'opsroom_sockets', { kind: 'student' });
}

test('one address for the class; the owner killed mid-round; its pages back through Caddy on the other, nothing lost', async () => {
  const { code, teacherKey } = await createRoomAt(caddy.url, {
    simulator: 'payment-switch',
    scenario: 'issuer-outage',
    teamCount: 2,
    minutes: MINUTES,
    tempo: TEMPO_MS / 1000,
    seed: 4242,
  });
  const held = await Promise.all(nodes.map(async (n) => (await n.rooms()).held.length));
  const owner = nodes[held.indexOf(1)];
  const other = nodes.find((n) => n !== owner)!;
  expect(held.sort()).toEqual([0, 1]);

  const teacher = await open('websocket', (p) => ok(p.client, 'teacher:join', { code, key: teacherKey }));
  const teacherMinutes = collect(teacher.client, 'room:minute');
  // Students join until at least eight have and each process has some: Caddy places a new page at random, and
  // every one of them comes from 127.0.0.1.
  const students: Page[] = [];
  const tokens = new Map<Page, string>();
  const joinStudent = (i: number) => async (p: Page) => {
    const j = await ok(
      p.client,
      'student:join',
      tokens.has(p) ? { code, token: tokens.get(p)! } : { code, name: `S${i}` },
    );
    tokens.set(p, j.token);
    return j;
  };
  let perNode = [0, 0];
  while (students.length < 8 || perNode.includes(0)) {
    if (students.length >= 24) throw new Error(`24 students, all on one process: ${perNode}`);
    const i = students.length;
    // Half of them long-polling only: each of their requests must reach the process that holds their session.
    students.push(await open(i % 2 ? 'polling' : 'websocket', joinStudent(i)));
    perNode = await Promise.all(nodes.map(studentsOn));
  }
  expect(perNode.reduce((a, b) => a + b)).toBe(students.length);
  const onOwner = perNode[nodes.indexOf(owner)];

  const room: RoomView = students.at(-1)!.joins[0].room;
  await ok(teacher.client, 'teacher:clock', { action: 'start' });
  let minute = 0;
  const play = async (node: Node, n: number) => {
    for (let k = 0; k < n; k++) {
      minute++;
      await node.advance(TEMPO_MS);
      await until(() => students.every((s) => s.minutes.some((m) => m.snapshot.minute === minute)), `minute ${minute}`);
    }
  };
  await until(() => students.every((s) => s.minutes.length === 1), 'minute 0');
  await play(owner, 3);
  const ownerOf = (role: string, team: number) =>
    students.find((s) => {
      const p = room.players.find((x) => x.id === s.joins[0].playerId)!;
      return p.teamId === room.teams[team].id && p.roles.includes(role);
    })!;
  const acked: ChangeRecord[] = [];
  acked.push((await ok(ownerOf('standin', 0).client, 'student:control', { key: 'standInLimit', value: 100 })).change);
  acked.push((await ok(ownerOf('scaling', 1).client, 'student:control', { key: 'servers', value: 9 })).change);
  await play(owner, 1);
  // Pending when the owner dies: applied at minute 5 by the other process.
  acked.push((await ok(ownerOf('shedding', 0).client, 'student:control', { key: 'shedding', value: true })).change);
  expect(acked.map((c) => c.minute)).toEqual([4, 4, 5]);
  const seenBefore = students.map((s) => s.minutes.length);
  expect(seenBefore.every((n) => n === 5)).toBe(true);

  // ── the owner dies; its lease is run out at once (instead of its ten seconds) and the other takes the room ──
  await owner.kill('SIGKILL');
  expect(await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  expect(await other.scan()).toEqual([code]);
  // The owner's pages reconnected by themselves to Caddy's address, which sent them to the other process.
  const rejoined = () => students.filter((s) => s.joins.length === 2);
  await until(() => rejoined().length === onOwner, 'the owner’s students joined again', 15_000);
  // The other process's pages never noticed.
  expect(students.filter((s) => s.disconnects > 0)).toEqual(rejoined());
  expect(await studentsOn(other)).toBe(students.length);
  for (const s of rejoined()) {
    const again = s.joins[1];
    expect(again.playerId).toBe(s.joins[0].playerId);
    // Their history holds every minute they saw, as they saw it.
    expect(again.history.snapshots).toEqual(s.minutes.slice(0, 5).map((m) => m.snapshot));
  }
  await until(() => teacher.joins.length === teacher.disconnects + 1, 'the teacher back', 15_000);
  await play(other, MINUTES - 4);

  // Every page has every minute; a minute seen twice (the takeover sends the last stored one again) is the same.
  for (const s of students) {
    const byMinute = new Map<number, string>();
    for (const m of [
      ...s.minutes,
      ...(s.joins[1]?.history.snapshots ?? []).map((snapshot: unknown) => ({ snapshot })),
    ]) {
      const data = JSON.stringify(m.snapshot);
      const was = byMinute.get(m.snapshot.minute);
      if (was !== undefined) expect(data).toBe(was);
      byMinute.set(m.snapshot.minute, data);
    }
    expect([...byMinute.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
  }
  await until(() => teacherMinutes.some((m) => m.minute === MINUTES), 'the teacher’s last minute');
  // Nothing acknowledged was lost: every change is stored, the pending one applied at its minute.
  const store = await cluster.store();
  const roundId = students[0].minutes[0].roundId;
  expect(await store.roundById(roundId)).toMatchObject({ state: 'finished', minute: MINUTES });
  const stored = await store.changesOfRound(roundId);
  for (const c of acked) expect(stored).toContainEqual(c);
  const shedder = ownerOf('shedding', 0);
  expect(shedder.minutes.find((m) => m.snapshot.minute === 5)?.snapshot.controls.shedding).toBe(true);
}, 90_000);
