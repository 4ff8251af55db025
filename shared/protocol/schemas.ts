// Schemas for every payload that arrives at the server (socket.io events and HTTP bodies).
import { z } from 'zod';
import { ABSENCES, LIMITS, PILOT_SKILLS, ROOM_PURPOSES, TEMPOS } from './types.ts';

/** Half of a UTF-16 pair without its other half: not text (PostgreSQL refuses it, SQLite stores it as bad UTF-8). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One line of text: trimmed, inner whitespace collapsed, no control or format characters (no bidi overrides). */
const lineSchema = (max: number, what: string) =>
  z
    .string()
    .refine((s) => !LONE_SURROGATE.test(s), `${what} has a broken character`)
    .transform((s) => s.normalize('NFC').replace(/\s+/gu, ' ').trim())
    .pipe(
      z
        .string()
        .min(1, `${what} is empty`)
        .max(max, `${what} is longer than ${max} characters`)
        // ZWJ/ZWNJ stay allowed: Devanagari (Nepali) names need them.
        .regex(/^(?:[^\p{Cc}\p{Cf}\p{Co}\p{Cn}]|[\u200C\u200D])+$/u, `${what} has control characters`),
    );

/** Display names (students, teams). */
export const nameSchema = (max: number) => lineSchema(max, 'name');

const code = z.string().min(1).max(16);
const id = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31);
const token = z.string().min(16).max(128);

export const tempoSchema = z.literal(TEMPOS);

export const roundConfigPatch = z.strictObject({
  simulator: z.string().max(40).optional(),
  scenario: z.string().max(40).optional(),
  minutes: z.number().int().min(LIMITS.minMinutes).max(LIMITS.maxMinutes).optional(),
  tempo: tempoSchema.optional(),
  seed: z.number().int().min(0).max(0xffffffff).nullable().optional(),
  teamCount: z.number().int().min(1).max(LIMITS.maxTeams).optional(),
  splitView: z.boolean().optional(),
  absence: z.enum(ABSENCES).optional(),
  graceSeconds: z.number().int().min(LIMITS.minGraceSeconds).max(LIMITS.maxGraceSeconds).optional(),
  idleMinutes: z.number().int().min(1).max(LIMITS.maxIdleMinutes).optional(),
});

/** Who plays a seat, as the teacher asks for it: the autopilot (with a policy's skill), the teacher, its student. */
const pilotAsk = z.enum(['autopilot', 'teacher', 'student']);

export const schemas = {
  'student:join': z.strictObject({ code, name: nameSchema(LIMITS.nameLength).optional(), token: token.optional() }),
  'student:control': z.strictObject({
    key: z.string().min(1).max(40),
    value: z.union([z.number(), z.boolean(), z.string().max(20)]),
  }),
  'teacher:join': z.strictObject({ code, key: token }),
  'teacher:configure': roundConfigPatch,
  'teacher:clock': z.strictObject({ action: z.enum(['start', 'pause', 'resume', 'step', 'end', 'next']) }),
  'teacher:tempo': z.strictObject({ tempo: tempoSchema }),
  'teacher:move': z.strictObject({ playerId: id, teamId: id }),
  'teacher:rename': z.strictObject({ teamId: id, name: nameSchema(LIMITS.teamNameLength) }),
  'teacher:remove': z.strictObject({ playerId: id }),
  'teacher:team': z.strictObject({ teamId: id }),
  'teacher:assign': z.strictObject({ playerId: id, role: z.string().min(1).max(40) }),
  'teacher:lock': z.strictObject({ locked: z.boolean() }),
  'teacher:message': z.strictObject({ teamId: id.nullable(), text: lineSchema(LIMITS.messageLength, 'message') }),
  'teacher:share': z.strictObject({ shared: z.boolean() }),
  'observer:join': z.strictObject({ code }),
  /** The student's page is hidden or shown again (the seat's idle state; only their own). */
  'student:presence': z.strictObject({ hidden: z.boolean() }),
  /** The student hands their own seat to the autopilot (to step out) or takes it back. */
  'student:pilot': z.strictObject({ autopilot: z.boolean() }),
  /** "Ask the team": the student takes the roles of a teammate gone past the grace. */
  'student:take': z.strictObject({ fromId: id }),
  /** The teacher passes a seat to the autopilot, to themselves, or back to its student. */
  'teacher:pilot': z.strictObject({ playerId: id, pilot: pilotAsk, skill: z.enum(PILOT_SKILLS).optional() }),
  /** The teacher's change of a control of a seat they play from the dashboard. */
  /** Fills a rehearsal's (or a practice's) teams with bots: one skill per team, a bot for every role nobody holds. */
  'teacher:bots': z.strictObject({
    teams: z.array(z.enum(PILOT_SKILLS)).min(1).max(LIMITS.maxTeams),
    role: z.string().min(1).max(40).optional(),
  }),
  'teacher:control': z.strictObject({
    playerId: id,
    key: z.string().min(1).max(40),
    value: z.union([z.number(), z.boolean(), z.string().max(20)]),
  }),
} as const;

export type ClientEvent = keyof typeof schemas;

/** Body of POST /api/rounds/:id/fork: the team and minute to start from, and changes recorded as pending (each after `minute`). */
export const forkBody = z
  .strictObject({
    teamId: id,
    minute: z.number().int().min(0).max(LIMITS.maxMinutes),
    changes: z
      .array(
        z.strictObject({
          minute: z.number().int().min(1).max(LIMITS.maxMinutes),
          key: z.string().min(1).max(40),
          value: z.union([z.number(), z.boolean(), z.string().max(20)]),
        }),
      )
      .max(500)
      .optional(),
  })
  .refine((b) => (b.changes ?? []).every((c) => c.minute > b.minute), {
    message: 'every change must come after the fork minute',
    path: ['changes'],
  });

/** Body of POST /api/rooms: the first round's configuration, all optional, and what the room is for. */
export const createRoomBody = roundConfigPatch.extend({ purpose: z.enum(ROOM_PURPOSES).optional() });
