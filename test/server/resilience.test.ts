// Resilience: SIGKILL under load then restart; a client cut off for 30 s; 10,000 malformed messages.
import { io as ioClient } from 'socket.io-client';
import { describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import { randomControlValue } from '../../shared/sim/controls.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { getModel } from '../../shared/sim/registry.ts';
import type { ControlDef, ControlValue } from '../../shared/sim/types.ts';
import type { ChangeRecord, RoomView, TeamMinute } from '../../shared/protocol/types.ts';
import { openSqlite } from '../../server/db/open.ts';
import { collect, connect, createRoom, ok, sqliteOf, startServer, until, type Client } from './helpers.ts';
import { childServers } from './process.ts';

const rng = rngFromSeed(20261130);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(uniform(rng) * xs.length)];
const validValue = (def: ControlDef): ControlValue => randomControlValue(def, () => uniform(rng));

describe('SIGKILL under load, then restart', () => {
  const servers = childServers('resilience');
  const dbPath = servers.dbPath;

  test('no stored minute is lost, every acknowledged change is kept, every round resumes and plays on exactly', async () => {
    const MINUTES = 20;
    const a = await servers.start();
    type Student = {
      client: Client;
      token: string;
      playerId: number;
      code: string;
      minutes: TeamMinute[];
      room: RoomView;
    };
    const students: Student[] = [];
    const rooms: { code: string; key: string; sim: 'payment-switch' | 'web-service' }[] = [];
    for (let r = 0; r < 3; r++) {
      const sim = r % 2 ? 'web-service' : 'payment-switch';
      const res = await fetch(`${a.url}/api/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          simulator: sim,
          scenario: sim === 'payment-switch' ? 'issuer-outage' : 'traffic-surge',
          teamCount: 3,
          minutes: MINUTES,
          tempo: 1,
          seed: 100 + r,
        }),
      });
      const { code, teacherKey } = await res.json();
      rooms.push({ code, key: teacherKey, sim });
      for (let i = 0; i < 12; i++) {
        const client = await a.connect();
        const minutes = collect(client, 'minute');
        const j = await ok(client, 'student:join', { code, name: `R${r}S${i}` });
        const s: Student = { client, token: j.token, playerId: j.playerId, code, minutes, room: j.room };
        client.on('room', (v) => (s.room = v));
        students.push(s);
      }
      const teacher = await a.connect();
      await ok(teacher, 'teacher:join', { code, key: teacherKey });
      await ok(teacher, 'teacher:clock', { action: 'start' });
    }
    const acked: ChangeRecord[] = [];
    const sendChanges = () =>
      students
        .filter(() => uniform(rng) < 0.15)
        .map((s) => {
          const me = s.room.players.find((p) => p.id === s.playerId)!;
          const defs = getModel(s.room.round.simulator).controls.filter((c) => me.roles.includes(c.role));
          if (!defs.length) return Promise.resolve();
          const def = pick(defs);
          return new Promise<void>((resolve) =>
            s.client.emit('student:control', { key: def.key, value: validValue(def) }, (r) => {
              if (r.ok) acked.push(r.change);
              resolve();
            }),
          );
        });
    for (let m = 1; m <= 9; m++) {
      await Promise.all(sendChanges());
      await a.advance(1000);
    }
    // The last burst: changes and a minute in flight when the process dies.
    void Promise.all(sendChanges());
    void a.advance(1000).catch(() => undefined);
    await a.kill('SIGKILL');

    // What was seen and acknowledged is what was stored.
    const store = openSqlite(dbPath);
    for (const s of students) {
      for (const m of s.minutes) {
        const stored = (await store.snapshotsOfRound(m.roundId, { teamId: m.teamId })).find(
          (x) => x.minute === m.snapshot.minute,
        );
        expect(stored?.data, `room ${s.code} team ${m.teamId} minute ${m.snapshot.minute}`).toBe(
          JSON.stringify(m.snapshot),
        );
      }
    }
    expect(acked.length).toBeGreaterThan(10);
    for (const c of acked) {
      expect((await store.changesOfRound(c.roundId)).find((x) => x.id === c.id)).toEqual(c);
    }
    const lastSeen = new Map<string, number>();
    for (const s of students)
      lastSeen.set(s.code, Math.max(lastSeen.get(s.code) ?? 0, ...s.minutes.map((m) => m.snapshot.minute)));
    await store.close();

    // Second life: every round is back, paused at its last stored minute.
    const b = await servers.start(Date.UTC(2026, 5, 1));
    for (const r of rooms) {
      const teacher = await b.connect();
      const j = await ok(teacher, 'teacher:join', { code: r.code, key: r.key });
      expect(j.room.round.state).toBe('paused');
      expect(j.room.round.minute).toBeGreaterThanOrEqual(lastSeen.get(r.code)!);
      await ok(teacher, 'teacher:clock', { action: 'resume' });
    }
    for (const s of students.filter((_, i) => i % 3 === 0)) {
      const c = await b.connect();
      const j = await ok(c, 'student:join', { code: s.code, token: s.token });
      expect(j.playerId).toBe(s.playerId);
    }
    for (let m = 0; m < MINUTES; m++) await b.advance(1000);
    b.proc.kill('SIGTERM');
    await new Promise((r) => b.proc.once('exit', r));

    const st = openSqlite(dbPath);
    for (const round of await st.roundsInState(['finished', 'paused', 'running'])) {
      expect(round.state).toBe('finished');
      for (const t of await st.roundTeams(round.id)) {
        const changes = (await st.changesOfRound(round.id)).filter((c) => c.teamId === t.teamId);
        const clean = runRound(getModel(round.simulator), {
          scenario: round.scenario,
          seed: round.seed ?? -1,
          noise: true,
          minutes: MINUTES,
          changes,
        });
        expect((await st.snapshotsOfRound(round.id, { teamId: t.teamId })).map((s) => s.data)).toEqual(
          clean.snapshots.map((s) => JSON.stringify(s)),
        );
      }
    }
    await st.close();
  }, 90_000);
});

describe('a client cut off for 30 s', () => {
  test('catches up with every missed minute, in order, and goes on', async () => {
    const server = await startServer();
    try {
      const { code, teacherKey } = await createRoom(server, {
        simulator: 'web-service',
        scenario: 'bad-deploy',
        teamCount: 1,
        minutes: 60,
        tempo: 1,
      });
      const teacher = await connect(server);
      await ok(teacher, 'teacher:join', { code, key: teacherKey });
      const steady = await connect(server);
      const steadyMinutes = collect(steady, 'minute');
      await ok(steady, 'student:join', { code, name: 'Steady' });

      // The flaky one reconnects by itself and joins again with its token, as the web app does.
      const flaky: Client = ioClient(server.url, {
        transports: ['websocket'],
        forceNew: true,
        reconnectionDelay: 10,
        reconnectionDelayMax: 20,
      });
      server.clients.push(flaky);
      let token: string | undefined;
      const view: number[] = [];
      const joins: number[] = [];
      flaky.on('connect', () => {
        flaky.emit('student:join', token ? { code, token } : { code, name: 'Flaky' }, (r) => {
          if (!r.ok) throw new Error(JSON.stringify(r.error));
          token = r.token;
          joins.push(r.history?.snapshots.length ?? 0);
          // Redraw from the history: exactly what the desk does after a reconnect.
          view.length = 0;
          for (const s of r.history?.snapshots ?? []) view.push(s.minute);
        });
      });
      flaky.on('minute', (m) => {
        if (view.length && m.snapshot.minute <= view[view.length - 1]) return; // already drawn from the history
        view.push(m.snapshot.minute);
      });
      await until(() => joins.length === 1, 'first join');
      await ok(teacher, 'teacher:clock', { action: 'start' });
      for (let i = 0; i < 5; i++) server.clock.advance(1000);
      await until(() => view.length === 6 && steadyMinutes.length === 6, 'six minutes on both');

      // The network drops: no goodbye, the TCP connection just dies.
      flaky.io.reconnection(false);
      const gone = new Promise((r) => flaky.once('disconnect', r));
      (flaky.io.engine.transport as unknown as { ws: { _socket: { destroy(): void } } }).ws._socket.destroy();
      await gone;
      for (let i = 0; i < 30; i++) server.clock.advance(1000);
      await until(() => steadyMinutes.length === 36, '30 more minutes for the steady one');
      expect(view).toEqual([0, 1, 2, 3, 4, 5]);

      flaky.io.reconnection(true);
      flaky.connect();
      await until(() => joins.length === 2, 'the rejoin');
      expect(view).toEqual(Array.from({ length: 36 }, (_, i) => i));
      for (let i = 0; i < 3; i++) server.clock.advance(1000);
      await until(() => view.length === 39, 'three minutes after the rejoin');
      expect(view).toEqual(Array.from({ length: 39 }, (_, i) => i));
      expect(steadyMinutes.map((m) => m.snapshot.minute)).toEqual(view);
    } finally {
      await server.close();
    }
  });
});

describe('10,000 random and malformed protocol messages', () => {
  test('every one is answered with an error, the server stays up and nothing changes', async () => {
    const server = await startServer();
    try {
      const { code, teacherKey } = await createRoom(server, { teamCount: 1, minutes: 30, tempo: 1 });
      const teacher = await connect(server);
      await ok(teacher, 'teacher:join', { code, key: teacherKey });
      const student = await connect(server);
      const sj = await ok(student, 'student:join', { code, name: 'Fuzz' });
      await ok(teacher, 'teacher:clock', { action: 'start' });
      server.clock.advance(1000);
      await ok(teacher, 'teacher:clock', { action: 'pause' });
      const observer = await connect(server);
      await ok(observer, 'observer:join', { code });
      const anonymous = await connect(server);
      // The student owns every role of team 1; a teammate joining mid-round is an analyst until the
      // teacher gives them half.
      const mate = await connect(server);
      const mateId = (await ok(mate, 'student:join', { code, name: 'Mate' })).playerId;
      const room = await server.app.rooms.get(code);
      for (const role of room.round.model.roles.slice(2))
        await ok(teacher, 'teacher:assign', { playerId: mateId, role: role.id });
      const me = room.view('teacher').players.find((p) => p.id === sj.playerId)!;
      const model = room.round.model;
      const mine = model.controls.filter((c) => me.roles.includes(c.role));
      const notMine = model.controls.filter((c) => !me.roles.includes(c.role));
      const db = sqliteOf(server);
      const state = async () =>
        JSON.stringify({
          view: room.view('teacher'),
          minute: room.round.minute,
          changes: (await server.app.store.changesOfRound(room.round.id)).length,
          rooms: db.prepare('select count(*) n from rooms').get(),
          players: db.prepare('select count(*) n from players').get(),
        });
      const before = await state();

      const junk = (): unknown =>
        pick([
          () => null,
          () => Math.floor(uniform(rng) * 1e9) - 5e8,
          () => 'x'.repeat(Math.floor(uniform(rng) * 200)),
          () => [1, 'a', null, { b: [] }],
          () => ({ __proto__: { polluted: true }, constructor: 'x' }),
          () => ({ code: { $ne: null } }),
          () => ({ a: { b: { c: { d: { e: [[[[]]]] } } } } }),
          () => true,
          () => Number.MAX_SAFE_INTEGER,
          () => '\u0000\u202E\uFFFF',
        ])();
      const outOfRange = (d: ControlDef): unknown =>
        d.kind === 'number'
          ? pick([d.max + d.step, d.min - d.step, d.min + d.step / 3, NaN, '5'])
          : d.kind === 'action'
            ? 'hold'
            : 42;
      // Each generator yields a message that is wrong for the socket that sends it.
      const generators: (() => [Client, string, unknown])[] = [
        () => [pick([student, observer, anonymous, teacher]), `evil:${Math.floor(uniform(rng) * 100)}`, junk()],
        () => [
          pick([student, observer, anonymous, teacher]),
          pick([
            'student:join',
            'student:control',
            'teacher:join',
            'teacher:clock',
            'teacher:configure',
            'teacher:move',
            'observer:join',
          ]),
          junk(),
        ],
        () => {
          const d = pick(mine);
          return [student, 'student:control', { key: d.key, value: outOfRange(d) }];
        },
        () => {
          const d = pick(notMine);
          return [student, 'student:control', { key: d.key, value: validValue(d) }];
        },
        () => [student, 'student:control', { key: `no${Math.floor(uniform(rng) * 1000)}`, value: 1 }],
        () => {
          const d = pick(mine);
          return [student, 'student:control', { key: d.key, value: validValue(d), extra: 1 }];
        },
        () => [
          pick([student, observer, anonymous]),
          'teacher:clock',
          { action: pick(['start', 'pause', 'resume', 'step', 'end', 'next']) },
        ],
        () => {
          const d = pick(mine);
          return [pick([observer, anonymous]), 'student:control', { key: d.key, value: validValue(d) }];
        },
        () => [
          pick([anonymous, observer]),
          'student:join',
          { code: pick(['ZZZZZZ', '222222', `${code.toLowerCase()}x`, '']), name: 'Eve' },
        ],
        () => [anonymous, 'student:join', { code, token: 'T'.repeat(43 + Math.floor(uniform(rng) * 20)) }],
        () => [anonymous, 'teacher:join', { code, key: 'K'.repeat(43) }],
        () => [teacher, 'teacher:move', { playerId: 999_999, teamId: 1 }],
        () => [teacher, 'teacher:configure', { scenario: 'fraud-wave' }],
        () => [teacher, 'teacher:clock', { action: pick(['start', 'pause', 'next']) }],
        () => [teacher, 'teacher:tempo', { tempo: pick([0, 3, 7, -1, 1.5, '5']) }],
        () => [teacher, 'teacher:rename', { teamId: 999_999, name: 'X' }],
        () => [
          teacher,
          'teacher:rename',
          { teamId: room.view('teacher').teams[0].id, name: pick(['', ' ', 'x'.repeat(40), 'a\u0007b']) },
        ],
      ];
      let answered = 0;
      const notices = [student, observer, anonymous, teacher].map((c) => collect(c, 'notice'));
      for (let i = 0; i < 10_000; i++) {
        server.clock.advance(150); // stay under the per-socket rate limit: we test validation, not the limiter
        const [client, event, payload] = pick(generators)();
        if (uniform(rng) < 0.03) {
          (client.emit as (...a: unknown[]) => void)(event, payload); // no acknowledgement: answered by a notice
          continue;
        }
        const r = await new Promise<any>((resolve) =>
          (client.emit as (...a: unknown[]) => void)(event, payload, resolve),
        );
        expect(r.ok, `${event} ${JSON.stringify(payload)?.slice(0, 120)}`).toBe(false);
        expect(typeof r.error.code).toBe('string');
        answered++;
      }
      // Raw engine.io garbage on a bare websocket: that connection is closed, nobody else is affected.
      for (let i = 0; i < 50; i++) {
        const ws = new WebSocket(`${server.url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`);
        await new Promise((r) => ws.once('open', r));
        const closed = new Promise((r) => ws.once('close', r));
        ws.send(
          pick(['42[', '4{', '9', '40/nope,', Buffer.from([0xff, 0x00, 0x13]), `42["student:join",${'{'.repeat(500)}`]),
        );
        ws.send('42["x"]');
        setTimeout(() => ws.terminate(), 200).unref();
        await closed;
      }
      await until(
        () => notices.reduce((n, x) => n + x.length, 0) + answered === 10_000,
        'a notice for every message without an acknowledgement',
      );
      expect(await state()).toBe(before);
      // Still alive and still correct.
      const health = await server.app.inject({ method: 'GET', url: '/api/health' });
      expect(health.statusCode).toBe(200);
      await ok(teacher, 'teacher:clock', { action: 'step' });
      expect(room.round.minute).toBe(2);
    } finally {
      await server.close();
    }
  }, 120_000);
});
