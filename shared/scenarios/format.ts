// The scenario file (docs/scenarios.md): one JSON document per scenario, checked by this schema before any
// meaning is read from it. Unknown keys are refused everywhere (a typo must not pass silently); numbers are
// finite; lists and texts are bounded, so a hostile file costs little to refuse. The published JSON Schema
// (`docs/scenario.schema.json`, served at /api/scenarios/schema.json) is generated from this one.
import { z } from 'zod';

export const SCHEMA_VERSION = 1;

/** Where the published JSON Schema is served (a stable address a file's `$schema` may name). */
export const SCHEMA_PATH = '/api/scenarios/schema.json';

/** Limits of a file, refused before parsing (size, nesting) or by the schema (counts, lengths). */
export const LIMITS = {
  /** Bytes of a file's text. */
  bytes: 256 * 1024,
  /** Nesting of objects and arrays. */
  depth: 12,
  /** The longest round a scenario may ask for (minutes). */
  minutes: 240,
  episodes: 40,
  messages: 60,
  goals: 12,
  /** Characters of a brief or a message. */
  text: 2000,
  name: 80,
} as const;

/** Language tags the app speaks (other languages of a file are refused: nobody would see them). */
export const LANGUAGES = ['en', 'id', 'hu', 'it', 'nl', 'ne'] as const;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const minute = z.int().min(0).max(LIMITS.minutes);
const id = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'lowercase letters, digits and dashes, starting with a letter, at most 40');
const key = z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,39}$/, 'a key of the model (letters and digits)');

/** Plain text: no markup (a brief is shown as text, never as HTML), no control characters but new lines. */
export function plainText(max: number) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !/<\s*[A-Za-z!/?]/.test(s), 'is plain text: no HTML or other markup')
    .refine((s) => !hasControl(s), 'has a control character');
}

/** A control character other than a new line (tabs included: a brief's layout is the screen's). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 10) || c === 127) return true;
  }
  return false;
}

/** A figure drawn uniformly from [lo, hi] (whole numbers for minutes); with noise off, the middle. */
const range = (item: z.ZodType<number> = finite) =>
  z.tuple([item, item]).refine(([lo, hi]) => lo <= hi, 'a range is [low, high] with low ≤ high');
const minutes = range(minute);
const share = range(z.number().min(0).max(1));
/** A size from a range, or from one of several ranges picked at random (`notAs`: not the pick of an earlier episode). */
const size = (r: z.ZodType<readonly [number, number]>) =>
  z.union([r, z.strictObject({ oneOf: z.array(r).min(1).max(4), notAs: z.int().min(0).optional() })]);
/** When an episode starts: a drawn minute, or drawn minutes after an earlier episode's start or end. */
const start = z
  .union([minutes, z.strictObject({ after: z.int().min(0), from: z.enum(['start', 'end']), gap: minutes })])
  .meta({ id: 'start', description: 'A drawn minute [low, high], or drawn minutes after an earlier episode' });
const factor = range(z.number().min(0).max(20));

// The payment switch's shock library (shared/sim/payment-switch/shocks.ts).
const psEpisode = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('sale'), start, length: minutes, size: size(factor), warn: minutes }),
    z.strictObject({ kind: z.literal('flash'), start, length: minutes, size: size(factor) }),
    z.strictObject({ kind: z.literal('bots'), start, length: minutes, size: size(factor), warn: minutes.optional() }),
    z.strictObject({
      kind: z.literal('attack'),
      start,
      length: minutes,
      share: size(share),
      learn: minutes,
      ramp: range(z.int().min(1).max(30)),
    }),
    z.strictObject({
      kind: z.literal('issuer'),
      start,
      length: minutes,
      meanS: size(range(z.number().min(0.05).max(60))),
      ramp: range(z.int().min(1).max(30)),
    }),
    z.strictObject({ kind: z.literal('backlog'), after: z.int().min(0), length: minutes, size: size(factor) }),
  ])
  .meta({ id: 'paymentSwitchEpisode' });
/** A shift's terms (shocks.ts `ShiftTerms`). */
const psTerms = z
  .strictObject({
    groupBMeanS: z.number().min(0.05).max(20),
    ownServers: z.int().min(0).max(24),
    burstPerHour: z.number().min(0).max(1000),
    shedRetry: z.number().min(0).max(1),
    backoffRetry: z.number().min(0).max(1),
    lowPriority: z.number().min(0).max(1),
    standInFee: z.number().min(0).max(10),
    retryP: z.number().min(0).max(1),
    retryUnavailable: z.boolean(),
    exposureCap: z.number().min(0).max(1e9).optional(),
    saleShopperShift: z.number().min(0).max(5).optional(),
    saleBasket: z.number().min(0).max(20).optional(),
    fraudLiability: z.number().min(0).max(1).optional(),
  })
  .meta({ id: 'paymentSwitchTerms' });

// The web service's shock library (shared/sim/web-service/episodes.ts).
const wsEpisode = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('surge'),
      start,
      length: minutes,
      size: size(factor),
      ramp: range(z.int().min(1).max(30)),
      cold: share.optional(),
      warn: minutes.optional(),
    }),
    z.strictObject({
      kind: z.literal('crawl'),
      start,
      length: minutes,
      size: size(factor),
      ramp: range(z.int().min(1).max(30)),
    }),
    z.strictObject({
      kind: z.literal('db'),
      start,
      length: minutes,
      size: size(share),
      ramp: range(z.int().min(1).max(30)),
    }),
    z.strictObject({ kind: z.literal('flush'), start, size: size(share), ramp: range(z.int().min(1).max(30)) }),
    z.strictObject({
      kind: z.literal('no-autoscaler'),
      start,
      length: range(
        z
          .int()
          .min(0)
          .max(LIMITS.minutes + 1),
      ),
    }),
    z.strictObject({
      kind: z.literal('train'),
      start: minutes,
      every: range(z.int().min(1).max(LIMITS.minutes)),
      count: z.int().min(1).max(30),
      bad: z.int().min(0).max(30),
      error: share,
    }),
  ])
  .meta({ id: 'webServiceEpisode' });
/** The web service's day: the clock at minute 0 (minutes after midnight), instances' boot time, error budget left. */
const wsDay = z
  .strictObject({
    clock: z.int().min(0).max(1439),
    bootMinutes: z.int().min(1).max(30),
    budget: z.number().min(0).max(1),
  })
  .meta({ id: 'webServiceDay' });

const goal = z
  .strictObject({
    id: key,
    indicator: key,
    aggregate: z.enum(['mean', 'final', 'worst']),
    /** A worst goal's stretch: the minutes running it averages over (default 10). */
    stretch: z.int().min(2).max(60).optional(),
    from: minute.optional(),
    op: z.enum(['>=', '<=']),
    target: finite,
  })
  .meta({ id: 'goal' });
const controlValue = z.union([finite, z.boolean(), z.string().max(40)]);
const role = z
  .strictObject({
    id,
    controls: z.array(key).max(20),
    sees: z.array(key).max(60),
  })
  .meta({ id: 'role' });

/** Text per language: English required, the others optional (a screen falls back to English). */
const perLanguage = <T extends z.ZodType>(t: T) =>
  z.strictObject({
    en: t,
    ...Object.fromEntries(LANGUAGES.filter((l) => l !== 'en').map((l) => [l, t.optional()])),
  }) as unknown as z.ZodObject<{ en: T } & Record<Exclude<(typeof LANGUAGES)[number], 'en'>, z.ZodOptional<T>>>;

const brief = z
  .strictObject({
    name: plainText(LIMITS.name),
    brief: plainText(LIMITS.text),
    /** A goal's words, by goal id. */
    goals: z.record(key, plainText(LIMITS.name * 2)).optional(),
  })
  .meta({ id: 'brief' });

const message = z.strictObject({ minute, text: perLanguage(plainText(LIMITS.text)) }).meta({ id: 'message' });

const common = {
  $schema: z.string().max(200).optional(),
  schemaVersion: z.literal(SCHEMA_VERSION),
  id,
  kind: z.enum(['free', 'classic', 'full-shift']),
  minutes: z.int().min(1).max(LIMITS.minutes).optional(),
  splitView: z.boolean().optional(),
  retired: z.boolean().optional(),
  scoreRule: z.union([z.literal(1), z.literal(2)]).optional(),
  controls: z.record(key, controlValue).optional(),
  /** The model's named timeline (the seed's levels, the retired shifts), when the scenario has no shocks of its own. */
  timeline: id.optional(),
  messages: z.array(message).max(LIMITS.messages).optional(),
  goals: z.array(goal).max(LIMITS.goals),
  roles: z.array(role).max(10).optional(),
  briefs: perLanguage(brief),
};

export const scenarioFileSchema = z.discriminatedUnion('simulator', [
  z.strictObject({
    ...common,
    simulator: z.literal('payment-switch'),
    level: z.int().min(1).max(9).optional(),
    shocks: z.strictObject({ setting: psTerms, episodes: z.array(psEpisode).min(1).max(LIMITS.episodes) }).optional(),
  }),
  z.strictObject({
    ...common,
    simulator: z.literal('web-service'),
    shocks: z.strictObject({ setting: wsDay, episodes: z.array(wsEpisode).min(1).max(LIMITS.episodes) }).optional(),
  }),
]);

export type ScenarioFile = z.infer<typeof scenarioFileSchema>;
export type Language = (typeof LANGUAGES)[number];

/** The published JSON Schema of a scenario file (draft 2020-12). */
export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(scenarioFileSchema, { target: 'draft-2020-12', unrepresentable: 'any' }),
    $id: SCHEMA_PATH,
    title: 'Opsroom scenario',
    description: 'One scenario of an Opsroom simulator (docs/scenarios.md).',
  };
}
