// `npm run bots` against a cluster: bots join one room through both processes, play their roles, and the process
// that owns the room is killed (SIGKILL) mid-round. The other takes the room, the killed process's bots are dropped
// seats whose grace runs out there, and the autopilot plays them from that process to the end; the bots on the
// living process read every minute to the end, as students, nothing refused. The round replays exactly, every
// change names its actor, and none is sent twice.
import { expect, test } from 'vitest';
import { type Bots, parseBotsArgs, runBots } from '../../server/cli/bots-cli.ts';
import { verifyRounds } from '../../server/replay/verify.ts';
import { collect, ok, until } from '../server/helpers.ts';
import { nodePair, testCluster } from './nodes.ts';

const MINUTES = 20;
const TEMPO_MS = 2000;
const KILLED_AT = 6;
const cluster = testCluster('bots');

const pair = nodePair(cluster);

test('bots on both processes; the owner killed mid-round: the autopilot carries its bots’ seats on from the other', async () => {
  const { a, b, store } = pair;
  const res = await a.post('/api/rooms', {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    teamCount: 2,
    minutes: MINUTES,
    tempo: TEMPO_MS / 1000,
    seed: 77,
    graceSeconds: 5,
  });
  const { code, teacherKey } = await res.json();
  const teacher = await b.connect();
  const seats = collect(teacher, 'seat');
  const rooms = collect(teacher, 'room');
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  // One bot a time, through A and B in turn: each process's bots hold roles of both teams, the early and the late.
  const onA: Bots[] = [];
  const onB: Bots[] = [];
  const names = { a: ['Ana', 'Cara', 'Eko', 'Gita'], b: ['Budi', 'Dewi', 'Fara', 'Hadi'] };
  for (let i = 0; i < 4; i++) {
    for (const [node, list, name] of [
      [a, onA, names.a[i]],
      [b, onB, names.b[i]],
    ] as const) {
      const bot = runBots(parseBotsArgs(['--url', node.url, '--code', code, '--students', '1', '--name', name]));
      list.push(bot);
      await until(() => bot.caughtUp(-1), `${name} to join`, 30_000);
    }
  }
  const caughtUp = (list: Bots[], m: number) => list.every((x) => x.caughtUp(m));
  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 1; m <= KILLED_AT; m++) {
    await a.advance(TEMPO_MS);
    await until(() => caughtUp(onA, m) && caughtUp(onB, m), `minute ${m} on both`, 30_000);
  }

  // Just before, the teacher (on B) plays the scaling seat of a bot on A and leaves it short of servers in the surge:
  // something its autopilot will have to answer.
  const players = rooms.at(-1)?.players ?? [];
  const seat = players.find((p) => names.a.some((n) => p.name === `${n} 1`) && p.roles.includes('scaling'));
  if (!seat) throw new Error('no bot on A holds the scaling role');
  await ok(teacher, 'teacher:pilot', { playerId: seat.id, pilot: 'teacher' });
  await ok(teacher, 'teacher:control', { playerId: seat.id, key: 'servers', value: 2 });
  await ok(teacher, 'teacher:pilot', { playerId: seat.id, pilot: 'student' });
  // ── A, the room's owner, dies; its bots lose their connection (they would come back with their tokens if it
  // were started again, as `npm run cluster` does; here they are stopped) ──
  await a.kill('SIGKILL');
  for (const x of onA) x.stop();
  expect(await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0)).toBe(1);
  expect(await b.scan()).toEqual([code]);

  // The round goes on from B: A's bots' seats wait out their grace, then the autopilot plays them.
  for (let m = KILLED_AT + 1; m <= MINUTES; m++) {
    await b.advance(TEMPO_MS);
    await until(() => caughtUp(onB, m), `minute ${m} on B`, 30_000);
  }
  for (const report of await Promise.all(onB.map((x) => x.done))) {
    expect(report.joined).toBe(1);
    expect(report.refused).toEqual({});
    expect(report.scores?.teams).toHaveLength(2);
  }
  const taken = seats.filter((s) => s.pilot?.kind === 'autopilot');
  expect(new Set(taken.map((s) => s.name))).toEqual(new Set(names.a.map((n) => `${n} 1`)));
  for (const s of taken) expect(s.pilot).toMatchObject({ skill: 'careful', reason: 'dropped' });
  expect(Math.min(...taken.map((s) => s.minute))).toBeGreaterThan(KILLED_AT);

  // Stored: A's bots' changes as students' before the kill, the autopilot's in their seats after, B's bots' as
  // students' throughout; the round re-simulates exactly from the seed and these changes.
  const roundId = taken[0].roundId;
  expect(await store.roundById(roundId)).toMatchObject({ state: 'finished', minute: MINUTES });
  const changes = await store.changesOfRound(roundId);
  const by = (side: 'a' | 'b', kind: string) =>
    changes.filter((c) => names[side].some((n) => c.author.name === `${n} 1`) && c.actor.kind === kind);
  // Each change once: a bot whose change is still pending (sent just as the next minute came) does not ask again.
  const seen = changes.map((c) => `${c.author.name}:${c.minute}:${c.key}=${c.value}`);
  expect(seen.length).toBe(new Set(seen).size);
  expect(by('a', 'student').length).toBeGreaterThan(0);
  expect(by('a', 'student').every((c) => c.minute <= KILLED_AT + 1)).toBe(true);
  expect(by('a', 'autopilot').length).toBeGreaterThan(0);
  expect(by('a', 'autopilot').every((c) => c.minute > KILLED_AT)).toBe(true);
  // The short seat: the autopilot raised its servers again.
  const raised = by('a', 'autopilot').filter((c) => c.author.playerId === seat.id && c.key === 'servers');
  expect(raised.length).toBeGreaterThan(0);
  expect(Number(raised[0].value)).toBeGreaterThan(2);
  expect(changes.filter((c) => c.actor.kind === 'teacher').map((c) => [c.author.playerId, c.key, c.value])).toEqual([
    [seat.id, 'servers', 2],
  ]);
  expect(by('b', 'student').length).toBeGreaterThan(0);
  expect(by('b', 'autopilot')).toEqual([]);
  const verified = await verifyRounds(store, ['finished']);
  expect(verified.find((v) => v.roomCode === code)?.mismatches).toEqual([]);
});
