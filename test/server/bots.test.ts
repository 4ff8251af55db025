// `npm run bots`: socket.io students who play their roles with the role policies, over the wire. Four bots join a
// room as a class does, play a whole round to its scores with changes the room accepts as any student's, and the
// round re-simulates exactly. Bad arguments are refused with the usage.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { parseBotsArgs, runBots, UsageError } from '../../server/cli/bots-cli.ts';
import { verifyRounds } from '../../server/replay/verify.ts';
import { advance, connect, createRoom, ok, sqliteOf, startServer, until, type TestServer } from './helpers.ts';

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(() => server.close());

describe('npm run bots', () => {
  test('four careful bots join by the code, play a whole round to its scores, and the round replays exactly', async () => {
    const minutes = 12;
    const { code, teacherKey } = await createRoom(server, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes,
      tempo: 1,
      seed: 11,
      teamCount: 2,
    });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const bots = runBots(parseBotsArgs(['--url', server.url, '--code', code, '--students', '4']));
    const room = await server.app.rooms.get(code);
    await until(() => room.view('teacher').players.length === 4, 'the bots to join');
    expect(room.view('teacher').players.map((p) => [p.name, p.roles.length])).toEqual([
      ['Bot 1', 2],
      ['Bot 2', 2],
      ['Bot 3', 2],
      ['Bot 4', 2],
    ]);
    await ok(teacher, 'teacher:clock', { action: 'start' });
    await until(() => bots.caughtUp(0), 'the bots to read minute 0');
    for (let m = 1; m <= minutes; m++) {
      await advance(server, 1000);
      await until(() => bots.caughtUp(m), `the bots to read minute ${m}`);
    }
    const report = await bots.done;
    expect(report.joined).toBe(4);
    expect(report.sent).toBeGreaterThan(0);
    expect(report.scores?.teams).toHaveLength(2);
    // The room took their changes as any student's, each from its own seat.
    const rows = sqliteOf(server)
      .prepare('SELECT c.actor, p.name FROM changes c JOIN players p ON p.id = c.player_id WHERE c.round_id = ?')
      .all(room.round.id) as { actor: string; name: string }[];
    expect(rows.length).toBe(report.sent);
    expect(new Set(rows.map((r) => JSON.parse(r.actor).kind))).toEqual(new Set(['student']));
    expect(rows.every((r) => /^Bot [1-4]$/.test(r.name))).toBe(true);
    const verified = await verifyRounds(server.app.store, ['finished']);
    expect(verified.find((v) => v.roomCode === code)?.mismatches).toEqual([]);
  });

  test('bad arguments are refused with what is expected', () => {
    const base = ['--url', 'http://localhost:3000', '--code', 'ABCDEF'];
    expect(() => parseBotsArgs(base)).toThrow(UsageError);
    expect(() => parseBotsArgs([...base, '--students', '0'])).toThrow(/1 to 120/);
    expect(() => parseBotsArgs([...base, '--students', '2.5'])).toThrow(/whole number/);
    expect(() => parseBotsArgs([...base, '--students', '3', '--skill', 'reckless'])).toThrow(/careful, late, careless/);
    expect(() => parseBotsArgs([...base, '--students', '3', '--delay', '-1'])).toThrow(/--delay/);
    expect(() => parseBotsArgs(['--url', 'localhost', '--code', 'X', '--students', '1'])).toThrow(/--url/);
    expect(() => parseBotsArgs([...base, '--students', '3', '--color', 'red'])).toThrow(UsageError);
    expect(parseBotsArgs([...base, '--students', '3', '--skill', 'late', '--delay', '2'])).toMatchObject({
      students: 3,
      skill: 'late',
      delay: 2,
      name: 'Bot',
    });
  });
});
