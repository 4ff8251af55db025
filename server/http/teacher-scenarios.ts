// A teacher's own scenarios (docs/scenarios.md, "Storing and sharing"): listed with the built-ins, read, saved as
// new versions, deleted, exported and shared by a link. Bodies arrive as text (the parser of scenarios.ts, whose
// plugin registers this one) and go through the file's own reader — size and nesting bounded before anything
// parses them — then the schema and meaning checks: an error refuses the file and nothing is stored; warnings come
// back as findings. A save stores the content (immutable, by hash) and moves the scenario to it; a content nothing
// refers to any more (no round played it, no scenario is at it) is dropped.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { acceptScenario, type Checked } from '../../shared/scenarios/check.ts';
import { LIMITS } from '../../shared/scenarios/format.ts';
import { shocksInCode } from '../../shared/scenarios/in-code.ts';
import { ScenarioFileError } from '../../shared/scenarios/load.ts';
import { models } from '../../shared/sim/registry.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';
import type { ScenarioEntry } from '../../shared/protocol/types.ts';
import { ScenarioConflict, type Write } from '../db/writes.ts';
import { builtInContent, contentOfFile, isBuiltIn, listed, readContent } from '../rooms/scenario-content.ts';
import { bearer, scenarioRefusal } from './errors.ts';
import type { HttpLimits } from './rooms.ts';

/** Scenarios one teacher keeps (each up to the file's size limit, every earlier version dropped unless played). */
export const SCENARIOS_PER_TEACHER = 200;

const idParams = z.object({ id: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'a scenario id') });
const tokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'a share token') });
const simulatorQuery = z.object({
  simulator: z.enum(Object.keys(models) as [SimulatorId, ...SimulatorId[]]).optional(),
});

/** Where another teacher imports a shared scenario (the editor's page reads `import`). */
export const shareUrl = (token: string) => `/teacher/scenarios?import=${token}`;

const notFound = (id: string) => new ClassroomError(ErrorCode.NOT_FOUND, `you have no scenario "${id}"`);

/** A body through the file's reader, the schema and the meaning checks; any error refuses it (400, its field). */
function accepted(body: unknown): Checked {
  if (typeof body !== 'string') throw new ClassroomError(ErrorCode.BAD_REQUEST, 'send the scenario file as JSON');
  let checked: Checked;
  try {
    checked = acceptScenario(body);
  } catch (e) {
    if (e instanceof ScenarioFileError) throw scenarioRefusal(e);
    throw e;
  }
  // A built-in of either simulator: one id names one scenario wherever a teacher picks it.
  const { id } = checked.file;
  if (Object.keys(models).some((m) => isBuiltIn(m, id)))
    throw new ClassroomError(ErrorCode.BAD_REQUEST, `"${id}" is a built-in scenario's id: give your scenario its own`, {
      key: 'id',
    });
  return checked;
}

/** The built-ins new rooms offer, in each model's order. */
function builtInList(): ScenarioEntry[] {
  return Object.values(models).flatMap((m) =>
    m.scenarios
      .filter((s) => !s.retired)
      .map((s) => ({
        id: s.id,
        simulator: m.id,
        title: builtInContent(m.id, s.id)?.file.briefs.en.name ?? s.id,
        source: 'builtin' as const,
      })),
  );
}

export async function teacherScenarioRoutes(fastify: FastifyInstance, opts: { limits: HttpLimits }): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const read = { rateLimit: opts.limits.lookups };
  // A save carries up to a file's size: as few a minute as the exports.
  const save = { rateLimit: opts.limits.exports };
  const bodyLimit = LIMITS.bytes + 1024;

  const teacherOf = (req: FastifyRequest): Promise<number> => {
    const key = bearer(req.headers.authorization);
    if (!key) throw new ClassroomError(ErrorCode.BAD_KEY, 'a teacher key is needed (Authorization: Bearer <key>)');
    return app.rooms.teacherId(key);
  };
  const { committer, clock } = app.rooms.deps;
  const stored = async (writes: Write[], id: string) => {
    try {
      await committer.commit(writes);
    } catch (e) {
      if (e instanceof ScenarioConflict)
        throw new ClassroomError(ErrorCode.BAD_STATE, `scenario "${id}" was saved meanwhile: open it again`, {
          key: 'id',
        });
      app.log.error({ err: e }, 'could not store a scenario');
      throw new ClassroomError(ErrorCode.STORAGE_FAILED, 'the server could not store this: nothing changed');
    }
  };
  /** Drops a content nothing refers to any more; a failure leaves it (unreferenced, dropped at no later time). */
  const dropUnused = (hash: string) =>
    committer
      .commit([{ op: 'dropContent', hash }])
      .catch((e: unknown) => app.log.warn({ err: e }, 'an unused scenario content was kept'));

  app.get('/api/teacher/scenarios', { config: read }, async (req) => {
    const mine = await app.store.scenariosOfTeacher(await teacherOf(req));
    return { scenarios: [...builtInList(), ...mine.map(listed)] };
  });

  app.get('/api/teacher/scenarios/shared/:token', { config: read, schema: { params: tokenParams } }, async (req) => {
    await teacherOf(req);
    const shared = await app.store.sharedScenario(req.params.token);
    if (!shared) throw new ClassroomError(ErrorCode.NOT_FOUND, 'no scenario is shared by this link');
    const { file } = readContent({ hash: shared.hash, simulator: shared.simulator, text: shared.text });
    return { id: shared.id, simulator: shared.simulator, title: shared.title, file };
  });

  // The teacher's own scenario of this id, else the built-in (of `simulator` when two models have one of this id).
  app.get(
    '/api/teacher/scenarios/:id',
    { config: read, schema: { params: idParams, querystring: simulatorQuery } },
    async (req) => {
      const { id } = req.params;
      const own = await app.store.scenarioOfTeacher(await teacherOf(req), id);
      if (own && (req.query.simulator ?? own.simulator) === own.simulator) {
        const { file } = readContent({ hash: own.hash, simulator: own.simulator, text: own.text });
        return {
          id,
          source: 'mine',
          version: own.version,
          ...(own.shareToken ? { shareToken: own.shareToken } : {}),
          file,
        };
      }
      const sims = req.query.simulator ? [req.query.simulator] : (Object.keys(models) as SimulatorId[]);
      for (const sim of sims) {
        const c = builtInContent(sim, id);
        // A built-in still in code: its shocks as the file's, so that a copy starts from shocks it can move.
        const shocks = c && !c.file.shocks && c.file.timeline === undefined ? shocksInCode(sim, id) : undefined;
        if (c) return { id, source: 'builtin', file: shocks ? { ...c.file, shocks } : c.file };
      }
      throw new ClassroomError(ErrorCode.NOT_FOUND, `no scenario "${id}"`);
    },
  );

  app.post('/api/teacher/scenarios', { config: save, bodyLimit }, async (req, reply) => {
    const teacherId = await teacherOf(req);
    const { file, findings } = accepted(req.body);
    const mine = await app.store.scenariosOfTeacher(teacherId);
    if (mine.some((a) => a.id === file.id))
      throw new ClassroomError(
        ErrorCode.BAD_STATE,
        `you already have a scenario "${file.id}": save it with PUT, or give the copy another id`,
        { key: 'id' },
      );
    if (mine.length >= SCENARIOS_PER_TEACHER)
      throw new ClassroomError(
        ErrorCode.STORAGE_QUOTA,
        `you keep ${mine.length} scenarios, the most one teacher keeps: delete one first`,
      );
    const c = contentOfFile(file);
    const now = clock.now();
    await stored(
      [
        { op: 'insertContent', content: { hash: c.hash, simulator: c.simulator, text: c.text }, at: now },
        {
          op: 'insertScenario',
          scenario: {
            teacherId,
            id: file.id,
            simulator: file.simulator,
            title: file.briefs.en.name,
            hash: c.hash,
            createdAt: now,
          },
        },
      ],
      file.id,
    );
    return reply.code(201).send({ id: file.id, version: 1, findings });
  });

  app.put('/api/teacher/scenarios/:id', { config: save, bodyLimit, schema: { params: idParams } }, async (req) => {
    const teacherId = await teacherOf(req);
    const { id } = req.params;
    const { file, findings } = accepted(req.body);
    if (file.id !== id)
      throw new ClassroomError(
        ErrorCode.BAD_REQUEST,
        `the file's id is "${file.id}", not "${id}": a new id is a new scenario (POST)`,
        { key: 'id' },
      );
    const own = await app.store.scenarioOfTeacher(teacherId, id);
    if (!own) throw notFound(id);
    if (own.simulator !== file.simulator)
      throw new ClassroomError(
        ErrorCode.BAD_REQUEST,
        `"${id}" is a ${own.simulator} scenario: a ${file.simulator} one needs another id`,
        { key: 'simulator' },
      );
    const c = contentOfFile(file);
    // The same content again is the same version.
    if (c.hash === own.hash) return { id, version: own.version, findings };
    const version = own.version + 1;
    await stored(
      [
        { op: 'insertContent', content: { hash: c.hash, simulator: c.simulator, text: c.text }, at: clock.now() },
        {
          op: 'updateScenario',
          teacherId,
          id,
          set: { hash: c.hash, title: file.briefs.en.name, version, updatedAt: clock.now() },
        },
      ],
      id,
    );
    await dropUnused(own.hash);
    return { id, version, findings };
  });

  // Rounds already played with it keep their content (by hash): their replays, what-ifs and exports stay exact.
  app.delete('/api/teacher/scenarios/:id', { config: read, schema: { params: idParams } }, async (req, reply) => {
    const teacherId = await teacherOf(req);
    const { id } = req.params;
    const own = await app.store.scenarioOfTeacher(teacherId, id);
    if (!own) throw notFound(id);
    await stored([{ op: 'deleteScenario', teacherId, id }], id);
    await dropUnused(own.hash);
    return reply.code(204).send();
  });

  app.get('/api/teacher/scenarios/:id/export', { config: read, schema: { params: idParams } }, async (req, reply) => {
    const { id } = req.params;
    const own = await app.store.scenarioOfTeacher(await teacherOf(req), id);
    if (!own) throw notFound(id);
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="${id}.opsroom-scenario.json"`)
      .header('cache-control', 'private, no-store')
      .send(own.text);
  });

  // The link is the same each time it is asked for (the first one made stays).
  app.post('/api/teacher/scenarios/:id/share', { config: read, schema: { params: idParams } }, async (req) => {
    const teacherId = await teacherOf(req);
    const { id } = req.params;
    let own = await app.store.scenarioOfTeacher(teacherId, id);
    if (!own) throw notFound(id);
    if (!own.shareToken) {
      await stored([{ op: 'shareScenario', teacherId, id, token: randomBytes(18).toString('base64url') }], id);
      own = await app.store.scenarioOfTeacher(teacherId, id);
    }
    if (!own?.shareToken) throw notFound(id);
    return { token: own.shareToken, url: shareUrl(own.shareToken) };
  });
}
