// Scenario files over HTTP: the published JSON Schema at a stable address (a file's `$schema` names it), and the
// check of a file at its first two depths — the text read within the file's limits before anything parses it; a
// file the schema refuses is answered in the one error shape naming each field, and the meaning's findings (errors
// and warnings) come back as a list.
import type { FastifyInstance } from 'fastify';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { checkScenario } from '../../shared/scenarios/check.ts';
import { LIMITS, SCHEMA_PATH, scenarioJsonSchema } from '../../shared/scenarios/format.ts';
import { ScenarioFileError } from '../../shared/scenarios/load.ts';
import { scenarioRefusal } from './errors.ts';
import type { HttpLimits } from './rooms.ts';
import { teacherScenarioRoutes } from './teacher-scenarios.ts';

export async function scenarioRoutes(fastify: FastifyInstance, opts: { limits: HttpLimits }): Promise<void> {
  const schema = JSON.stringify(scenarioJsonSchema());
  fastify.get(SCHEMA_PATH, async (_req, reply) =>
    reply.type('application/schema+json; charset=utf-8').header('cache-control', 'public, max-age=3600').send(schema),
  );

  // This plugin's JSON bodies arrive as text: the file's own reader bounds their size and nesting before parsing.
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: LIMITS.bytes + 1024 },
    (_req, body, done) => done(null, body),
  );
  // A teacher's own scenarios take their bodies through the same reader.
  await fastify.register(teacherScenarioRoutes, opts);
  fastify.post(
    '/api/scenarios/check',
    { config: { rateLimit: opts.limits.lookups }, bodyLimit: LIMITS.bytes + 1024 },
    async (req) => {
      if (typeof req.body !== 'string')
        throw new ClassroomError(ErrorCode.BAD_REQUEST, 'send the scenario file as JSON');
      try {
        // Errors of meaning come back as findings (an editor shows them all); `ok` says whether the file would be taken.
        const { file, findings } = checkScenario(req.body);
        return { id: file.id, simulator: file.simulator, ok: !findings.some((f) => f.level === 'error'), findings };
      } catch (e) {
        if (e instanceof ScenarioFileError) throw scenarioRefusal(e);
        throw e;
      }
    },
  );
}
