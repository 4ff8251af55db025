// Main's classroom commands across two processes: the room is owned by A, its teacher and students are on B, so
// every command goes from B to A and every effect comes back through Redis. In split view the owner moves a
// student's sockets on B from one view channel to another as roles change hands: from the next minute each
// student receives exactly one minute, with what their roles see now.
import { beforeAll, describe, expect, test } from 'vitest';
import { visibleKeys } from '../../shared/classroom/split.ts';
import type { RoomView, TeacherMessage, TeamMinute } from '../../shared/protocol/types.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { collect, ok, request, until, type Client } from '../server/helpers.ts';
import { testCluster, type Node } from './nodes.ts';

const cluster = testCluster('classroom');
const keysOf = (m: TeamMinute) => Object.keys(m.snapshot.indicators).sort();
const visible = (roles: string[]) => [...visibleKeys(paymentSwitch, roles)].sort();

describe('a split-view class owned by A, taught and played on B', () => {
  let a: Node;
  let b: Node;
  let code: string;
  let teacher: Client;
  let room: RoomView;
  const students: {
    name: string;
    client: Client;
    playerId: number;
    minutes: TeamMinute[];
    messages: TeacherMessage[];
  }[] = [];
  const rolesOf = (playerId: number) => room.players.find((p) => p.id === playerId)!.roles;
  const tick = async () => {
    const n = students[0].minutes.length;
    await a.advance(1000);
    await until(() => students.every((s) => s.minutes.length >= n + 1), `minute ${n}`);
  };

  beforeAll(async () => {
    await cluster.services();
    [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
    const res = await a.post('/api/rooms', { scenario: 'sale-day', teamCount: 1, tempo: 1, seed: 11, minutes: 20 });
    expect(res.status).toBe(201);
    const created = await res.json();
    code = created.code;
    expect(created.room.config.splitView).toBe(true);
    teacher = await b.connect();
    const joined = await ok(teacher, 'teacher:join', { code, key: created.teacherKey });
    expect(joined).toMatchObject({ roleChanges: [], messages: [] });
    for (const name of ['Ana', 'Bo', 'Cy', 'Di', 'Ed']) {
      const client = await b.connect();
      const minutes = collect(client, 'minute');
      const messages = collect(client, 'message');
      const j = await ok(client, 'student:join', { code, name });
      // The seat as main gives it: the team's role changes (the roles this join handed out among them), no message yet.
      const mine = j.room.players.find((p: { id: number }) => p.id === j.playerId).roles;
      expect(
        j.roleChanges
          .filter((c: { to: { playerId: number } | null }) => c.to?.playerId === j.playerId)
          .map((c: { role: string }) => c.role)
          .sort(),
      ).toEqual([...mine].sort());
      expect(j.messages).toEqual([]);
      // The public view: no seed.
      expect(j.room.round.seed).toBeNull();
      students.push({ name, client, playerId: j.playerId, minutes, messages });
    }
    room = (await ok(teacher, 'teacher:clock', { action: 'start' })).room;
    await until(() => students.every((s) => s.minutes.length === 1), 'minute 0');
  });

  test('only A holds the room', async () => {
    expect((await a.rooms()).held.map((r) => r.code)).toEqual([code]);
    expect((await b.rooms()).held).toEqual([]);
  });

  test('each student on B receives only what their roles see, once a minute', async () => {
    await tick();
    for (const s of students) {
      expect(s.minutes).toHaveLength(2);
      for (const m of s.minutes) expect(keysOf(m)).toEqual(visible(rolesOf(s.playerId)));
    }
    expect(rolesOf(students[4].playerId)).toEqual([]);
  });

  test('a role handed over from B moves both students’ sockets on B to their new views from the next minute', async () => {
    const [from, to] = [students[2], students[4]];
    const role = rolesOf(from.playerId)[0];
    const roles = collect(to.client, 'roles');
    room = (await ok(teacher, 'teacher:assign', { playerId: to.playerId, role })).room;
    expect(rolesOf(to.playerId)).toEqual([role]);
    expect(rolesOf(from.playerId)).toEqual([]);
    await until(() => roles.length === 1, 'the role change to the team');
    await tick();
    const last = (s: (typeof students)[number]) => s.minutes.at(-1)!;
    expect(keysOf(last(to))).toEqual(visible([role]));
    expect(keysOf(last(from))).toEqual(visible([]));
    // Exactly one minute each: nobody is left in an old view channel as well.
    for (const s of students) expect(s.minutes.map((m) => m.snapshot.minute)).toEqual([0, 1, 2]);
  });

  test('a message, the lock and sharing, asked on B, are done by A and reach B', async () => {
    const team = room.teams[0].id;
    const { message } = await ok(teacher, 'teacher:message', { teamId: team, text: 'Check the fraud rules' });
    expect(message).toMatchObject({ teamId: team, text: 'Check the fraud rules' });
    await until(() => students.every((s) => s.messages.length === 1), 'the message on every desk');
    expect(students[0].messages[0]).toEqual(message);

    room = (await ok(teacher, 'teacher:lock', { locked: true })).room;
    expect(room.locked).toBe(true);
    const late = await b.connect();
    expect(await request(late, 'student:join', { code, name: 'Late' })).toMatchObject({
      ok: false,
      error: { code: 'ROOM_LOCKED' },
    });
    room = (await ok(teacher, 'teacher:lock', { locked: false })).room;
    expect((await ok(late, 'student:join', { code, name: 'Late' })).messages).toEqual([message]);

    room = (await ok(teacher, 'teacher:share', { shared: true })).room;
    expect(room.replayShared).toBe(true);
    const look = await (await fetch(`${b.url}/api/rooms/${code}`)).json();
    expect(look).toMatchObject({ code, state: 'running', locked: false, players: 6, seed: null });
  });

  test('a student removed from B’s teacher is cut off on B', async () => {
    const gone = students[3];
    const cut = new Promise<void>((resolve) => gone.client.once('disconnect', () => resolve()));
    room = (await ok(teacher, 'teacher:remove', { playerId: gone.playerId })).room;
    expect(room.players.some((p) => p.id === gone.playerId)).toBe(false);
    await cut;
  });
});
