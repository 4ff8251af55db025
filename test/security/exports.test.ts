// The round's export (issue 13 item 6, issue 12 "CSV for people"): finished rounds' files are built once
// and then served from memory, built a team at a time with the event loop free in between, and
// rate-limited; the columns are named in the reader's language; all four files come in one ZIP that
// `unzip -t` accepts, holding exactly the three downloads.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../server/http/rooms.ts';
import { advance, connect, createRoom, ok, startServer, type TestServer, turnsUntil } from '../server/helpers.ts';

const messages = (lang: string): Record<string, string> =>
  JSON.parse(readFileSync(`web/messages/${lang}.json`, 'utf8'));

/** A round of `teams` teams played to its end (or to `stopAt` minutes, left running). */
async function playRound(
  server: TestServer,
  teams: number,
  minutes: number,
  stopAt = minutes,
): Promise<{ roundId: number; key: string; code: string }> {
  const { code, teacherKey } = await createRoom(server, { teamCount: teams, minutes, tempo: 1 });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const started = await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 0; m < stopAt; m++) await advance(server, 1000);
  return { roundId: started.room.round.id, key: teacherKey, code };
}

describe('export files', () => {
  let server: TestServer;
  let done: { roundId: number; key: string; code: string };
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-export-'));
  beforeAll(async () => {
    server = await startServer({
      httpLimits: { ...DEFAULT_HTTP_LIMITS, exports: { max: 1000, timeWindow: '1 minute' } },
    });
    done = await playRound(server, 3, 20);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (roundId: number, key: string, file: string, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: 'GET',
      url: `/api/rounds/${roundId}/export/${file}`,
      headers: { authorization: `Bearer ${key}`, ...headers },
    });

  test("a finished round's file is built once, then served from memory; a running round's each time", async () => {
    const before = server.app.exports.builds;
    const first = await get(done.roundId, done.key, 'minutes.csv');
    for (let i = 0; i < 3; i++)
      expect((await get(done.roundId, done.key, 'minutes.csv?lang=en')).rawPayload.equals(first.rawPayload)).toBe(true);
    expect(server.app.exports.builds - before).toBe(1);
    // The ZIP builds only the three parts not in memory yet.
    expect((await get(done.roundId, done.key, 'all.zip')).statusCode).toBe(200);
    expect(server.app.exports.builds - before).toBe(4);
    // Another language is another file.
    await get(done.roundId, done.key, 'minutes.csv?lang=it');
    expect(server.app.exports.builds - before).toBe(5);

    const running = await playRound(server, 1, 30, 5);
    const b = server.app.exports.builds;
    await get(running.roundId, running.key, 'minutes.csv');
    await advance(server, 1000);
    const later = await get(running.roundId, running.key, 'minutes.csv');
    expect(server.app.exports.builds - b).toBe(2);
    // Its latest minute is in the second file: nothing stale is served.
    expect(later.body.trimEnd().split('\r\n')).toHaveLength(1 + 7);
  });

  test('the ZIP passes `unzip -t` and holds exactly the three CSV files', async () => {
    const res = await get(done.roundId, done.key, 'all.zip');
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="opsroom-${done.code}-round1.zip"`);
    const path = join(dir, 'all.zip');
    writeFileSync(path, res.rawPayload);
    const tested = execFileSync('unzip', ['-t', path], { encoding: 'utf8' });
    expect(tested).toMatch(/No errors detected/);
    for (const part of ['minutes', 'changes', 'scores', 'seats']) {
      const name = `opsroom-${done.code}-round1-${part}.csv`;
      expect(tested).toContain(`testing: ${name}`);
      const inside = execFileSync('unzip', ['-p', path, name]);
      expect(inside.equals((await get(done.roundId, done.key, `${part}.csv`)).rawPayload), part).toBe(true);
    }
  });

  test('columns are named in the language asked for (or the browser’s), with unit and key', async () => {
    const header = async (file: string, headers: Record<string, string> = {}) =>
      (await get(done.roundId, done.key, file, headers)).body.slice(1).split('\r\n')[0];
    const it = messages('it');
    expect(await header('minutes.csv?lang=it')).toContain(`${it.ps_ind_goodApproval} (%) [goodApproval]`);
    expect(await header('minutes.csv?lang=it')).toContain(`${it.csv_minute} [minute]`);
    const hu = messages('hu');
    expect(await header('minutes.csv', { 'accept-language': 'hu-HU,hu;q=0.9,en;q=0.5' })).toContain(
      `${hu.ps_ind_authTimeMs} (ms) [authTimeMs]`,
    );
    const ne = messages('ne');
    expect(await header('changes.csv?lang=ne')).toContain(`${ne.csv_author} [author]`);
    // A language the app does not speak falls back to English.
    expect(await header('minutes.csv?lang=xx')).toContain('Good-customer approval rate (%) [goodApproval]');
  });

  test('values are rounded to the unit the desk shows, never in exponent notation', async () => {
    const rows = (await get(done.roundId, done.key, 'minutes.csv')).body
      .slice(1)
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const col = (name: string) => rows[0].indexOf(name);
    for (const r of rows.slice(1)) {
      expect(r[col('Good-customer approval rate (%) [goodApproval]')]).toMatch(/^\d{1,3}\.\d$/);
      expect(r[col('Authorization time (ms) [authTimeMs]')]).toMatch(/^\d+$/);
      expect(r[col('Servers in service [serversInService]')]).toMatch(/^\d+$/);
      for (const cell of r) expect(cell).not.toMatch(/\d[eE][-+]?\d/);
    }
  });

  test('unknown files are refused by the route schema, in the error shape', async () => {
    for (const file of [
      'minutes.xlsx',
      'all.csv',
      'passwords.zip',
      '..%2F..%2Fetc%2Fpasswd',
      'constructor',
      '__proto__',
    ]) {
      const res = await get(done.roundId, done.key, file);
      expect(res.statusCode, file).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^file: export files are minutes\.csv/),
      });
    }
  });
});

test('building a large round gives the event loop a turn between teams', async () => {
  const server = await startServer();
  try {
    const { roundId, key } = await playRound(server, 30, 60);
    const { value: res, turns } = await turnsUntil(
      server.app.inject({
        method: 'GET',
        url: `/api/rounds/${roundId}/export/minutes.csv`,
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    // Built in one go, the request would finish within a few turns: here at least one per team.
    expect(turns).toBeGreaterThanOrEqual(30);
    expect(res.body.trimEnd().split('\r\n')).toHaveLength(1 + 30 * 61);
  } finally {
    await server.close();
  }
});

test('downloads are rate-limited per address', async () => {
  const server = await startServer();
  try {
    const { roundId, key } = await playRound(server, 1, 5);
    const codes: number[] = [];
    for (let i = 0; i < DEFAULT_HTTP_LIMITS.exports.max; i++) {
      codes.push(
        (
          await server.app.inject({
            method: 'GET',
            url: `/api/rounds/${roundId}/export/scores.csv`,
            headers: { authorization: `Bearer ${key}` },
          })
        ).statusCode,
      );
    }
    expect(codes.every((c) => c === 200)).toBe(true);
    const last = await server.app.inject({
      method: 'GET',
      url: `/api/rounds/${roundId}/export/all.zip`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(last.statusCode).toBe(429);
    expect(last.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  } finally {
    await server.close();
  }
});
