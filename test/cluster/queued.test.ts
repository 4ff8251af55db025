// Changes that pile up while a room has no owner (its process died, the lease not yet run out) reach the process
// that takes the room all at once. The room takes them together, a few commits for all of them: its clock is not
// held behind one commit per change, and the next minute comes on time with every one of them in it.
import { beforeAll, expect, test } from 'vitest';
import type { ChangeRecord, TeamMinute } from '../../shared/protocol/types.ts';
import { type Client, collect, ok, request, sample, until } from '../server/helpers.ts';
import { type Node, testCluster } from './nodes.ts';

const TEMPO_MS = 2000;
const cluster = testCluster('queued');

let a: Node;
let b: Node;

beforeAll(async () => {
  await cluster.services();
  // Their own looks for rooms nobody holds are left to the test.
  [a, b] = await Promise.all([cluster.start('a', { SCAN_MS: '600000' }), cluster.start('b', { SCAN_MS: '600000' })]);
});

const commits = async (node: Node) =>
  sample(await (await fetch(`${node.url}/metrics`)).text(), 'opsroom_commit_duration_seconds_count');

const changeFor: Record<string, (i: number) => [string, number | boolean]> = {
  scaling: (i) => ['servers', 6 + (i % 10)],
  shedding: (i) => ['shedding', i % 2 === 0],
  fraud: (i) => ['fraudThreshold', 2 + (i % 10) / 10],
  standin: (i) => ['standInLimit', 100 + i],
};

/**
 * A class owned by `owner`, its teacher and its `teams` × 4 students (one of the payment switch's four roles each)
 * connected to B, at minute 1.
 */
async function classOnB(owner: Node, teams: number, seed: number) {
  const res = await owner.post('/api/rooms', { teamCount: teams, minutes: 30, tempo: TEMPO_MS / 1000, seed });
  const { code, teacherKey } = await res.json();
  const teacher = await b.connect();
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const students: { client: Client; playerId: number; minutes: TeamMinute[] }[] = [];
  for (let i = 0; i < teams * 4; i++) {
    const client = await b.connect();
    const minutes = collect(client, 'minute');
    const j = await ok(client, 'student:join', { code, name: `S${i}` });
    students.push({ client, playerId: j.playerId as number, minutes });
  }
  const { room } = await ok(teacher, 'teacher:clock', { action: 'start' });
  await owner.advance(TEMPO_MS);
  await until(() => students.every((s) => s.minutes.length === 2), 'minute 1');
  const roleOf = (id: number) => room.players.find((p: { id: number }) => p.id === id).roles[0] as string;
  /** `n` changes from each student, sent at once. */
  const send = (n: number) =>
    students.flatMap((s) =>
      Array.from({ length: n }, (_, i) => {
        const [key, value] = changeFor[roleOf(s.playerId)](i);
        return request(s.client, 'student:control', { key, value: value as number });
      }),
    );
  return { code, students, send };
}

test('after a takeover, the changes queued meanwhile are stored in a few commits and do not hold the clock', async () => {
  const { code, students, send } = await classOnB(a, 1, 7);

  // ── A dies; twenty changes from each student wait on B for the room's next owner ──
  await a.kill('SIGKILL');
  const sent = send(20);
  const before = await commits(b);
  expect(await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  // Taken by B's look, or by the first of the waiting asks that finds nobody holding it.
  await b.scan();
  const answers = await Promise.all(sent);
  expect((await b.rooms()).held.map((h) => h.code)).toContain(code);
  expect(answers.every((r) => r.ok)).toBe(true);
  const changes = answers.map((r) => r.change as ChangeRecord);
  // Eighty changes and the room's takeover in a handful of commits, not one each.
  const used = (await commits(b)) - before;
  expect(used).toBeLessThanOrEqual(6);

  // The next minute comes one tempo on, with every change in force for it.
  const seen = students[0].minutes.length;
  await b.advance(TEMPO_MS);
  await until(() => students.every((s) => s.minutes.length > seen), 'the next minute on B');
  const next = students[0].minutes.at(-1) as TeamMinute;
  expect(next.snapshot.minute).toBe(2);
  expect(new Set(changes.map((c) => c.minute))).toEqual(new Set([2]));
  // The owner's order, not the order sent: each waiting change reached it when its own retry did. The last one it
  // took (the highest seq) is the one in force.
  const last = (key: string) => changes.filter((c) => c.key === key).reduce((x, y) => (y.seq > x.seq ? y : x)).value;
  expect(next.snapshot.controls.servers).toBe(last('servers'));
  expect(next.snapshot.controls.standInLimit).toBe(last('standInLimit'));
});

test('a class of 12 sends 96 changes during the gap: all answered by the new owner in a few commits, its clock on time', async () => {
  // B took the previous room and goes on; A is gone. C owns this class; its 12 students (3 teams × 4 roles) are on B.
  const c = await cluster.start('c', { SCAN_MS: '600000' });
  const { code, students, send } = await classOnB(c, 3, 8);

  await c.kill('SIGKILL');
  const sent = send(8);
  const before = await commits(b);
  expect(await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  // Taken by B's look, or by the first of the waiting asks that finds nobody holding it.
  await b.scan();
  const answers = await Promise.all(sent);
  expect((await b.rooms()).held.map((h) => h.code)).toContain(code);
  expect(answers.filter((r) => r.ok)).toHaveLength(96);
  // Ninety-six changes and the takeover in a handful of commits: the clock is never queued behind one per change.
  expect((await commits(b)) - before).toBeLessThanOrEqual(8);
  // The next minute one tempo after the takeover, each team's last change of each control in force.
  const seen = students.map((s) => s.minutes.length);
  await b.advance(TEMPO_MS);
  await until(() => students.every((s, i) => s.minutes.length > seen[i]), 'the next minute on B');
  const changes = answers.map((r) => r.change as ChangeRecord);
  for (const s of students) {
    const next = s.minutes.at(-1) as TeamMinute;
    expect(next.snapshot.minute).toBe(2);
    const mine = changes.filter((x) => x.teamId === next.teamId && x.key === 'servers');
    if (mine.length) expect(next.snapshot.controls.servers).toBe(mine.reduce((x, y) => (y.seq > x.seq ? y : x)).value);
  }
});
