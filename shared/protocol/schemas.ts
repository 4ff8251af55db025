// Schemas for every payload that arrives at the server (socket.io events and HTTP bodies).
import { z } from 'zod';
import { LIMITS, TEMPOS } from './types.ts';

/** Display names: trimmed, inner whitespace collapsed, no control or format characters (no bidi overrides). */
export const nameSchema = (max: number) =>
  z
    .string()
    .transform((s) => s.normalize('NFC').replace(/\s+/gu, ' ').trim())
    .pipe(
      z
        .string()
        .min(1, 'name is empty')
        .max(max, `name is longer than ${max} characters`)
        // ZWJ/ZWNJ stay allowed: Devanagari (Nepali) names need them.
        .regex(/^(?:[^\p{Cc}\p{Cf}\p{Co}\p{Cn}]|[\u200C\u200D])+$/u, 'name has control characters'),
    );

const code = z.string().min(1).max(16);
const id = z.number().int().min(1).max(2 ** 31);
const token = z.string().min(16).max(128);

export const tempoSchema = z.literal(TEMPOS);

export const roundConfigPatch = z.strictObject({
  simulator: z.string().max(40).optional(),
  scenario: z.string().max(40).optional(),
  minutes: z.number().int().min(LIMITS.minMinutes).max(LIMITS.maxMinutes).optional(),
  tempo: tempoSchema.optional(),
  seed: z.number().int().min(0).max(0xffffffff).nullable().optional(),
  teamCount: z.number().int().min(1).max(LIMITS.maxTeams).optional(),
});

export const schemas = {
  'student:join': z.strictObject({ code, name: nameSchema(LIMITS.nameLength).optional(), token: token.optional() }),
  'student:control': z.strictObject({ key: z.string().min(1).max(40), value: z.union([z.number(), z.boolean(), z.string().max(20)]) }),
  'teacher:join': z.strictObject({ code, key: token }),
  'teacher:configure': roundConfigPatch,
  'teacher:clock': z.strictObject({ action: z.enum(['start', 'pause', 'resume', 'step', 'end', 'next']) }),
  'teacher:tempo': z.strictObject({ tempo: tempoSchema }),
  'teacher:move': z.strictObject({ playerId: id, teamId: id }),
  'teacher:rename': z.strictObject({ teamId: id, name: nameSchema(LIMITS.teamNameLength) }),
  'teacher:remove': z.strictObject({ playerId: id }),
  'teacher:team': z.strictObject({ teamId: id }),
  'observer:join': z.strictObject({ code }),
} as const;

export type ClientEvent = keyof typeof schemas;

/** Body of POST /api/rooms: the first round's configuration, all optional. */
export const createRoomBody = roundConfigPatch;
