// Crash and restart: SIGKILL mid-round, start again on the same file, play on.
import { expect, test } from 'vitest';
import { baselineRun, runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import type { RoomView, TeamMinute } from '../../shared/protocol/types.ts';
import { openSqlite } from '../../server/db/open.ts';
import { collect, createRoomAt, ok, request, until } from './helpers.ts';
import { childServers } from './process.ts';

const servers = childServers('crash');
const dbPath = servers.dbPath;

test('a round killed with SIGKILL resumes at its last stored minute and plays on exactly', async () => {
  const MINUTES = 16;
  const SEED = 4242;
  // ── first life ──
  const a = await servers.start();
  const { code, teacherKey } = await createRoomAt(a.url, {
    simulator: 'payment-switch',
    scenario: 'issuer-outage',
    teamCount: 2,
    minutes: MINUTES,
    tempo: 2,
    seed: SEED,
  });
  const teacher = await a.connect();
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const students: { token: string; playerId: number; minutes: TeamMinute[] }[] = [];
  let room!: RoomView;
  for (let i = 0; i < 6; i++) {
    const c = await a.connect();
    const minutes = collect(c, 'minute');
    const j = await ok(c, 'student:join', { code, name: `S${i}` });
    students.push({ token: j.token, playerId: j.playerId, minutes });
    room = j.room;
  }
  await ok(teacher, 'teacher:clock', { action: 'start' });
  const clientOf = (i: number) => a.clients[i + 1];
  const roleOwner = (role: string, teamIdx: number) =>
    students.findIndex((s) => {
      const p = room.players.find((x) => x.id === s.playerId)!;
      return p.teamId === room.teams[teamIdx].id && p.roles.includes(role);
    });
  let minuteA = 0;
  const advanceA = async (n: number) => {
    minuteA += n;
    for (let k = 0; k < n; k++) await a.advance(2000);
    await until(() => students.every((s) => s.minutes.length === minuteA + 1), `minute ${minuteA} on the first server`);
  };
  await until(() => students.every((s) => s.minutes.length === 1), 'minute 0');
  await advanceA(3); // minutes 1..3
  await ok(clientOf(roleOwner('standin', 0)), 'student:control', { key: 'standInLimit', value: 100 });
  await ok(clientOf(roleOwner('standin', 0)), 'student:control', { key: 'issuerTimeoutS', value: 2 });
  await advanceA(4); // minutes 4..7
  // A change still pending (for minute 8) when the process dies.
  await ok(clientOf(roleOwner('scaling', 1)), 'student:control', { key: 'servers', value: 9 });
  const seenBefore = students[0].minutes.length - 1;
  expect(seenBefore).toBe(7);
  await a.kill('SIGKILL');

  // ── second life, same file ──
  const b = await servers.start(Date.UTC(2026, 0, 2));
  const teacher2 = await b.connect();
  const tj = await ok(teacher2, 'teacher:join', { code, key: teacherKey });
  expect(tj.room.round).toMatchObject({ state: 'paused', minute: 7, seed: SEED });
  const back: { minutes: TeamMinute[]; joined: any }[] = [];
  for (const s of students) {
    const c = await b.connect();
    const minutes = collect(c, 'minute');
    const joined = await ok(c, 'student:join', { code, token: s.token });
    back.push({ minutes, joined });
    // Same player, same team, same roles.
    const before = room.players.find((p) => p.id === s.playerId)!;
    const after = joined.room.players.find((p: { id: number }) => p.id === s.playerId);
    expect(joined.playerId).toBe(s.playerId);
    expect(after).toMatchObject({ teamId: before.teamId, roles: before.roles });
    // The history is every minute they saw before the crash, unchanged.
    expect(joined.history.snapshots).toEqual(s.minutes.map((m) => m.snapshot));
    expect(
      joined.history.changes.some((c: { key: string; minute: number }) => c.key === 'servers' && c.minute === 8),
    ).toBe(before.teamId === room.teams[1].id);
  }
  // A forged token is refused.
  const intruder = await b.connect();
  const forged = await request(intruder, 'student:join', { code, token: 'x'.repeat(43) });
  expect(forged).toMatchObject({ ok: false, error: { code: 'BAD_TOKEN' } });

  await ok(teacher2, 'teacher:clock', { action: 'resume' });
  for (let m = 8; m <= MINUTES; m++) {
    await b.advance(2000);
    await until(() => back.every((s) => s.minutes.length === m - 7), `minute ${m} after the restart`);
  }

  // ── the same round, never crashed ──
  b.proc.kill('SIGTERM');
  await new Promise((r) => b.proc.once('exit', r));
  const store = openSqlite(dbPath);
  const roundId = students[0].minutes[0].roundId;
  expect(await store.roundById(roundId)).toMatchObject({ state: 'finished', minute: MINUTES });
  for (const t of room.teams) {
    const changes = (await store.changesOfRound(roundId)).filter((c) => c.teamId === t.id);
    const baseline = baselineRun(paymentSwitch, 'issuer-outage', SEED, MINUTES);
    const clean = runRound(paymentSwitch, {
      scenario: 'issuer-outage',
      seed: SEED,
      noise: true,
      minutes: MINUTES,
      changes,
      baseline,
    });
    const stored = await store.snapshotsOfRound(roundId, { teamId: t.id });
    expect(stored.map((s) => s.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
    expect(stored.map((s) => s.data)).toEqual(clean.snapshots.map((s) => JSON.stringify(s)));
    const member = back.find(
      (s) =>
        s.joined.room.players.find((p: { id: number; teamId: number }) => p.id === s.joined.playerId).teamId === t.id,
    )!;
    expect(member.minutes.map((m) => m.snapshot)).toEqual(clean.snapshots.slice(8));
    const score = (await store.resultsOfRound(roundId)).find((r) => r.teamId === t.id);
    expect(score?.score).toBe(clean.result.score);
  }
  await store.close();
}, 60_000);
