// Names a person could not tell apart are told apart (before: "Ana", "Ana" + ZWJ, "Ana" + ZWNJ and "Аna" with a
// Cyrillic А sat in one team unsuffixed), and text that is not text is refused (a lone surrogate was stored as
// invalid UTF-8, which PostgreSQL refuses).
import { afterEach, expect, test } from 'vitest';
import { nameKey } from '../../server/rooms/roster.ts';
import { connect, createRoom, ok, request, startServer, type TestServer } from '../server/helpers.ts';

let server: TestServer;
afterEach(async () => server?.close());

test('a name reads as a person reads it: invisible characters, look-alike letters, width and case aside', () => {
  const ana = nameKey('Ana');
  for (const same of ['Ana\u200D', 'Ana\u200C', 'A\u200Bna', '\u0410na', 'An\u0430', 'ＡＮＡ', 'ana\uFE0F', '\u0391na'])
    expect(nameKey(same)).toBe(ana);
  for (const other of ['Anna', 'Ána', 'Ana2', 'Ava']) expect(nameKey(other)).not.toBe(ana);
  // Devanagari keeps its letters (the joiners it needs for display are only left out of the comparison).
  expect(nameKey('क्\u200Dष')).toBe(nameKey('क्ष'));
  expect(nameKey('राम')).not.toBe(nameKey('श्याम'));
});

test('look-alikes in one team are suffixed, as the same name is; a broken character is refused, nothing stored', async () => {
  server = await startServer();
  const { code } = await createRoom(server, { teamCount: 1 });
  const names: string[] = [];
  for (const name of ['Ana', 'Ana\u200D', 'Ana\u200C', '\u0410na', 'ＡＮＡ']) {
    const joined = await ok(await connect(server), 'student:join', { code, name });
    names.push(joined.room.players.find((p: { id: number }) => p.id === joined.playerId).name);
  }
  expect(names.map(nameKey)).toEqual(['ana', 'ana 2', 'ana 3', 'ana 4', 'ana 5']);
  // What each typed is kept, with its suffix.
  expect(names[3]).toBe('\u0410na 4');

  const players = () => server.app.rooms.peek(code)?.view('teacher').players.length;
  const before = players();
  for (const name of ['Ana\uD800', '\uDC00Ana', 'A\uDBFF']) {
    const refused = await request(await connect(server), 'student:join', { code, name });
    expect(refused).toEqual({
      ok: false,
      error: { code: 'BAD_REQUEST', message: expect.stringMatching(/name.*broken character/) },
    });
  }
  expect(players()).toBe(before);
  // A real pair (an emoji) is text.
  expect((await request(await connect(server), 'student:join', { code, name: 'Ana 🚀' })).ok).toBe(true);
});
