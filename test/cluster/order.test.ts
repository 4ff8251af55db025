// Changes keep the order the room took them in across a takeover by a process whose ids are lower. Each process
// draws change ids in blocks from the sequence: B draws its block first, A the next one, so every change A records
// has a higher id than any B records after it. Two changes of the same minute — the first taken by A, the second
// by B after A died — apply in that order live; read back (a replay, the export, the coach, a fork, a second
// takeover) they must apply in the same order, not by id.
import { beforeAll, expect, test } from 'vitest';
import type { SqlStore } from '../../server/db/store.ts';
import { loadRound } from '../../server/rooms/load.ts';
import type { ChangeRecord, TeamMinute } from '../../shared/protocol/types.ts';
import { collect, ok, until } from '../server/helpers.ts';
import { type Node, testCluster } from './nodes.ts';

const TEMPO_MS = 2000;
const cluster = testCluster('order');

let a: Node;
let b: Node;
let store: SqlStore;

beforeAll(async () => {
  await cluster.services();
  // B starts first and draws its ids first (a room made there takes its blocks), then A draws the next blocks.
  b = await cluster.start('b', { SCAN_MS: '600000' });
  await b.post('/api/rooms', { teamCount: 1 });
  a = await cluster.start('a', { SCAN_MS: '600000' });
  store = await cluster.store();
});

test('two changes of one minute, taken by the old owner then the new one, keep their order everywhere', async () => {
  const res = await a.post('/api/rooms', { teamCount: 1, minutes: 20, tempo: TEMPO_MS / 1000, seed: 11 });
  const { code, teacherKey } = await res.json();
  const teacher = await b.connect();
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const student = await b.connect();
  const minutes = collect(student, 'minute');
  const joined = await ok(student, 'student:join', { code, name: 'Ana' });
  const started = await ok(teacher, 'teacher:clock', { action: 'start' });
  const roundId = started.room.round.id as number;
  await a.advance(TEMPO_MS);
  await until(() => minutes.length === 2, 'minute 1');

  // A takes servers = 14 for minute 2, then dies.
  const first: ChangeRecord = (await ok(student, 'student:control', { key: 'servers', value: 14 })).change;
  await a.kill('SIGKILL');
  expect(await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  expect(await b.scan()).toEqual([code]);
  // B takes servers = 10 for the same minute: the later change, with the lower id.
  const second: ChangeRecord = (await ok(student, 'student:control', { key: 'servers', value: 10 })).change;
  expect([first.minute, second.minute]).toEqual([2, 2]);
  expect(second.id).toBeLessThan(first.id);
  expect(second.seq).toBeGreaterThan(first.seq);

  // Live, the later one wins.
  const seen = minutes.length;
  await b.advance(TEMPO_MS);
  await until(() => minutes.some((m, i) => i >= seen && m.snapshot.minute === 2), 'minute 2 on B');
  const live = minutes.find((m) => m.snapshot.minute === 2) as TeamMinute;
  expect(live.snapshot.controls.servers).toBe(10);

  // Read back in the room's order: the database, the replay, the export.
  const stored = await store.changesOfRound(roundId);
  expect(stored.map((c) => c.value)).toEqual([14, 10]);
  const row = (await store.roundById(roundId))!;
  const { mismatches } = await loadRound(store, row, { resimulate: true });
  expect(mismatches).toEqual([]);
  const auth = { authorization: `Bearer ${teacherKey}` };
  const replay = await (await fetch(`${b.url}/api/rounds/${roundId}/replay`, { headers: auth })).json();
  expect(replay.teams[0].changes.map((c: ChangeRecord) => c.value)).toEqual([14, 10]);
  expect(replay.teams[0].columns.controls.servers[2]).toBe(10);
  const csv = await (await fetch(`${b.url}/api/rounds/${roundId}/export/changes.csv`, { headers: auth })).text();
  const lines = csv.split('\r\n').filter((l) => /,(14|10)(,|$)/.test(l));
  expect(lines.map((l) => (l.includes(',14') ? 14 : 10))).toEqual([14, 10]);
  // A what-if from minute 2 starts where the team was: servers 10.
  const fork = await (
    await fetch(`${b.url}/api/rounds/${roundId}/fork`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ teamId: joined.history?.teamId ?? started.room.teams[0].id, minute: 2 }),
    })
  ).json();
  expect(fork.code).toBeTruthy();
  const forkTeacher = await b.connect();
  const forkSeat = await ok(forkTeacher, 'teacher:join', { code: fork.code, key: teacherKey });
  expect(forkSeat.latest.teams[0].snapshot.controls.servers).toBe(10);

  // A second takeover rebuilds the room from the database: it goes on with servers = 10.
  const c = await cluster.start('c', { SCAN_MS: '600000' });
  await b.kill('SIGKILL');
  expect(await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  expect(await c.scan()).toEqual([code]);
  const watcher = await c.connect();
  const seat = await ok(watcher, 'teacher:join', { code, key: teacherKey });
  expect(seat.latest.minute).toBe(2);
  expect(seat.latest.teams[0].snapshot.controls.servers).toBe(10);
  const after = collect(watcher, 'room:minute');
  await c.advance(TEMPO_MS);
  await until(() => after.some((m) => m.minute === 3), 'minute 3 on C');
  expect(after.find((m) => m.minute === 3)?.teams[0].snapshot.controls.servers).toBe(10);
  const rebuilt = (await c.rooms()).events.find((e) => e.room === code && e.msg === 'room taken by this process');
  expect(rebuilt).toBeTruthy();
});
