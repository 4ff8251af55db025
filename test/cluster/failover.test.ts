// The owner of a running room dies (SIGKILL) mid-round. Its lease is made to run out at once (PEXPIRE, instead of
// waiting its ten seconds), the other process takes the room on its next look (asked for here instead of waited
// for), rebuilds it from PostgreSQL by re-simulation, and the round goes on there: no minute anyone saw and no
// acknowledged change is lost, the students of the dead process come back with their tokens, and the round ends
// exactly as one that never failed.
import { expect, test } from 'vitest';
import type { ChangeRecord, RoomView, TeamMinute } from '../../shared/protocol/types.ts';
import { baselineRun, runRound, scenarioDef } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { evaluateRound } from '../../shared/sim/score.ts';
import { collect, ok, until, type Client } from '../server/helpers.ts';
import { nodePair, testCluster, type Node } from './nodes.ts';

const MINUTES = 16;
const SEED = 4242;
const TEMPO_MS = 2000;
const cluster = testCluster('failover');

interface Student {
  on: Node;
  client: Client;
  token: string;
  playerId: number;
  minutes: TeamMinute[];
}

const pair = nodePair(cluster);

test('SIGKILL of the room’s owner mid-round: the other process takes the room and the round goes on, nothing lost', async () => {
  const { a, b, store } = pair;
  // ── A owns the room; the teacher is on B, the students on both ──
  const res = await a.post('/api/rooms', {
    simulator: 'payment-switch',
    scenario: 'issuer-outage',
    teamCount: 2,
    minutes: MINUTES,
    tempo: TEMPO_MS / 1000,
    seed: SEED,
  });
  const { code, teacherKey } = await res.json();
  const teacher = await b.connect();
  const teacherMinutes = collect(teacher, 'room:minute');
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const students: Student[] = [];
  let room!: RoomView;
  for (let i = 0; i < 6; i++) {
    const on = i % 2 ? b : a;
    const client = await on.connect();
    const minutes = collect(client, 'minute');
    const j = await ok(client, 'student:join', { code, name: `S${i}` });
    students.push({ on, client, token: j.token, playerId: j.playerId, minutes });
    room = j.room;
  }
  await ok(teacher, 'teacher:clock', { action: 'start' });
  const owner = (role: string, teamIdx: number, on: Node) =>
    students.find((s) => {
      const p = room.players.find((x) => x.id === s.playerId)!;
      return p.teamId === room.teams[teamIdx].id && p.roles.includes(role) && s.on === on;
    });
  const anyOwner = (role: string, teamIdx: number) => owner(role, teamIdx, a) ?? owner(role, teamIdx, b)!;
  let minute = 0;
  const play = async (node: Node, n: number, who: Student[]) => {
    for (let k = 0; k < n; k++) {
      minute++;
      await node.advance(TEMPO_MS);
      await until(() => who.every((s) => s.minutes.length === minute + 1), `minute ${minute}`);
    }
  };
  await until(() => students.every((s) => s.minutes.length === 1), 'minute 0');
  await play(a, 3, students);
  const acked: ChangeRecord[] = [];
  acked.push((await ok(anyOwner('standin', 0).client, 'student:control', { key: 'standInLimit', value: 100 })).change);
  acked.push((await ok(anyOwner('standin', 0).client, 'student:control', { key: 'issuerTimeoutS', value: 2 })).change);
  await play(a, 4, students); // minutes 4..7
  // Two changes still pending (for minute 8) when the owner dies: one sent through B, one straight to A.
  acked.push((await ok(anyOwner('scaling', 1).client, 'student:control', { key: 'servers', value: 9 })).change);
  acked.push((await ok(anyOwner('shedding', 0).client, 'student:control', { key: 'shedding', value: true })).change);
  expect(acked.map((c) => c.minute)).toEqual([4, 4, 8, 8]);
  expect(new Set(acked.map((c) => c.teamId)).size).toBe(2);
  const seenBefore = students.map((s) =>
    s.minutes.map((m) => ({ teamId: m.teamId, minute: m.snapshot.minute, data: JSON.stringify(m.snapshot) })),
  );
  expect(seenBefore.every((m) => m.length === 8)).toBe(true);

  // ── A dies ──
  await a.kill('SIGKILL');
  const redis = cluster.redis();
  // The lease's ten seconds, run out at once.
  expect(await redis.pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  await b.scan();
  const onB = await b.rooms();
  expect(onB.held).toEqual([{ code, state: 'running', minute: 7 }]);
  expect(onB.events).toContainEqual({ msg: 'room taken by this process', room: code, failover: true });

  // ── A's students come back through B with their tokens: everything they saw is there ──
  const back: Student[] = [];
  for (const s of students) {
    if (s.on === b) {
      back.push(s);
      continue;
    }
    const client = await b.connect();
    const minutes = collect(client, 'minute');
    const joined = await ok(client, 'student:join', { code, token: s.token });
    expect(joined.playerId).toBe(s.playerId);
    expect(joined.history.snapshots).toEqual(s.minutes.map((m) => m.snapshot));
    const mine = acked.filter((c) => c.teamId === joined.history.teamId).map((c) => c.id);
    expect(joined.history.changes.map((c: ChangeRecord) => c.id)).toEqual(expect.arrayContaining(mine));
    for (const m of joined.history.snapshots) minutes.push({ snapshot: m } as TeamMinute);
    back.push({ ...s, on: b, client, minutes });
  }
  // B sent the last stored minute again when it took the room (A may have died between storing and sending it):
  // the students who stayed on B have minute 7 twice, identical; the ones back from A had it in their history.
  const stayed = back.filter((s) => students.includes(s));
  await until(() => stayed.every((s) => s.minutes.length === 9) && teacherMinutes.length === 9, 'minute 7 again');
  for (const s of stayed) expect(s.minutes[8].snapshot).toEqual(s.minutes[7].snapshot);
  for (const s of stayed) s.minutes.splice(8, 1);
  teacherMinutes.splice(8, 1);
  // The round went on by itself: the teacher did nothing. Minutes 8..16 come from B.
  await play(b, MINUTES - 7, back);
  for (const s of back)
    expect(s.minutes.map((m) => m.snapshot.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
  await until(() => teacherMinutes.length === MINUTES + 1, 'the teacher’s last minute');
  expect(teacherMinutes.map((m) => m.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));

  // ── nothing lost: the stored round is the one that never failed ──
  const roundId = students[0].minutes[0].roundId;
  expect(await store.roundById(roundId)).toMatchObject({ state: 'finished', minute: MINUTES });
  const stored = await store.changesOfRound(roundId);
  for (const c of acked) expect(stored).toContainEqual(c);
  for (const t of room.teams) {
    const changes = stored.filter((c) => c.teamId === t.id);
    const clean = runRound(paymentSwitch, {
      scenario: 'issuer-outage',
      seed: SEED,
      noise: true,
      minutes: MINUTES,
      changes,
    });
    const snaps = await store.snapshotsOfRound(roundId, { teamId: t.id });
    expect(snaps.map((s) => s.data)).toEqual(clean.snapshots.map((s) => JSON.stringify(s)));
    // Scored as the CLI scores it: against doing nothing and a calm hour on the same seed and minutes.
    const score = evaluateRound(
      scenarioDef(paymentSwitch, 'issuer-outage'),
      clean.snapshots,
      baselineRun(paymentSwitch, 'issuer-outage', SEED, MINUTES, true),
    ).score;
    expect((await store.resultsOfRound(roundId)).find((r) => r.teamId === t.id)?.score).toBe(score);
    // Every minute a student saw before the failover is the stored one.
    for (const seen of seenBefore)
      for (const m of seen.filter((x) => x.teamId === t.id)) expect(m.data).toBe(snaps[m.minute].data);
  }
  // The pending changes applied at minute 8, on B.
  const t1 = back.find((s) => s.minutes[8].teamId === room.teams[1].id)!;
  expect(t1.minutes[8].snapshot.controls.servers).toBe(9);
  expect((await store.roomByCode(code))!.fence).toBe(2);
});

test('SIGTERM of a room’s owner hands the running round over: released at once, taken by another, going on', async () => {
  const { b, store } = pair;
  // C looks for rooms nobody holds only when asked: its own look (every few seconds of real time) could otherwise
  // take the released lease before the test reads it.
  const c = await cluster.start('c', { SCAN_MS: '3600000' });
  const res = await b.post('/api/rooms', {
    simulator: 'web-service',
    scenario: 'traffic-surge',
    teamCount: 1,
    minutes: 10,
    tempo: 1,
    seed: 5,
  });
  const { code, teacherKey } = await res.json();
  const teacher = await c.connect();
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const student = await c.connect();
  const minutes = collect(student, 'minute');
  const notices = collect(student, 'notice');
  await ok(student, 'student:join', { code, name: 'Solo' });
  await ok(teacher, 'teacher:clock', { action: 'start' });
  await b.advance(1000);
  await until(() => minutes.length === 2, 'minute 1');

  await b.kill('SIGTERM');
  const report = JSON.parse(b.lines[b.lines.length - 1]);
  expect(report).toMatchObject({ roundsPaused: 0, roundsHandedOver: 1 });
  // Released, not expired: no PEXPIRE needed; the round is still running in the database.
  expect(await cluster.redis().exists(`opsroom:lease:{${code}}`)).toBe(0);
  const roundId = minutes[0].roundId;
  expect(await store.roundById(roundId)).toMatchObject({ state: 'running', minute: 1 });
  expect(await c.scan()).toEqual([code]);
  expect((await c.rooms()).held).toEqual([{ code, state: 'running', minute: 1 }]);
  await c.advance(1000);
  // Minute 1 once more from C as it took the room, then minute 2.
  await until(() => minutes.length === 4, 'minute 2 from C');
  expect(minutes.map((m) => m.snapshot.minute)).toEqual([0, 1, 1, 2]);
  // B told its own sockets it was stopping, not those of the process that goes on.
  expect(notices).toEqual([]);
});
