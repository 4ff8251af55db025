// Control validation: the engine rejects anything out of range with a typed error; it never clamps.
// A number off its step is refused, except for floating-point noise (0.1 + 0.2), which is snapped.
import { PRESS, type ControlChange, type ControlDef, type ControlValue, type SimMeta, type Snapshot } from './types.ts';

export const ControlErrorCode = {
  UNKNOWN_CONTROL: 'UNKNOWN_CONTROL',
  BAD_TYPE: 'BAD_TYPE',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
  OFF_STEP: 'OFF_STEP',
  /** The scenario's story has taken the control away for now (`Snapshot.unavailable`). */
  UNAVAILABLE: 'UNAVAILABLE',
} as const;
export type ControlErrorCode = (typeof ControlErrorCode)[keyof typeof ControlErrorCode];

export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    readonly code: ControlErrorCode,
    readonly key: string,
    /** Human-readable allowed values, e.g. "2–24 step 1" or "on/off". */
    readonly allowed: string,
    message: string,
  ) {
    super(message);
  }
}

/** Decimals needed to print a step (0.1 → 1, 0.05 → 2, 1 → 0). */
function stepDecimals(step: number): number {
  let d = 0;
  while (d < 6 && Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) > 1e-9) d++;
  return d;
}

export function describeAllowed(def: ControlDef): string {
  switch (def.kind) {
    case 'number': {
      const d = stepDecimals(def.step);
      return `${def.min.toFixed(d)}–${def.max.toFixed(d)} step ${def.step} (${def.unit})`;
    }
    case 'bool':
      return 'on/off';
    case 'enum':
      return def.options.join('/');
    case 'action':
      return PRESS;
  }
}

export function controlDef(model: SimMeta, key: string): ControlDef {
  const def = model.controls.find((c) => c.key === key);
  if (!def) {
    const keys = model.controls.map((c) => c.key).join(', ');
    throw new ControlError(
      ControlErrorCode.UNKNOWN_CONTROL,
      key,
      keys,
      `unknown control "${key}" for ${model.id}; controls are: ${keys}`,
    );
  }
  return def;
}

/**
 * How far from a step a number may be, in steps, and still count as on it: floating-point noise of
 * `min + k·step` arithmetic (~1e-15) passes, a typed 8.9999999 (1e-7) does not.
 */
export const STEP_TOLERANCE = 1e-9;

/** Throws ControlError unless `value` is allowed for `key`; returns the change with a number snapped exactly onto its step. */
export function validateChange(model: SimMeta, change: ControlChange): ControlChange {
  const def = controlDef(model, change.key);
  const allowed = describeAllowed(def);
  const fail = (code: ControlErrorCode, why: string): never => {
    throw new ControlError(code, def.key, allowed, `${def.key}: ${why}; allowed ${allowed}`);
  };
  const v = change.value;
  switch (def.kind) {
    case 'number': {
      if (typeof v !== 'number' || !Number.isFinite(v))
        return fail(ControlErrorCode.BAD_TYPE, `expected a number, got ${JSON.stringify(v)}`);
      if (v < def.min || v > def.max) return fail(ControlErrorCode.OUT_OF_RANGE, `${v} is out of range`);
      const k = (v - def.min) / def.step;
      if (Math.abs(k - Math.round(k)) > STEP_TOLERANCE)
        return fail(ControlErrorCode.OFF_STEP, `${v} is not a multiple of the step ${def.step}`);
      const snapped = Number(
        (def.min + Math.round(k) * def.step).toFixed(Math.max(stepDecimals(def.step), stepDecimals(def.min))),
      );
      return snapped === v ? change : { key: change.key, value: snapped };
    }
    case 'bool':
      if (typeof v !== 'boolean') fail(ControlErrorCode.BAD_TYPE, `expected on/off, got ${JSON.stringify(v)}`);
      break;
    case 'enum':
      if (typeof v !== 'string' || !def.options.includes(v))
        fail(ControlErrorCode.BAD_TYPE, `expected one of ${def.options.join('/')}, got ${JSON.stringify(v)}`);
      break;
    case 'action':
      if (v !== PRESS) fail(ControlErrorCode.BAD_TYPE, `an action takes "${PRESS}", got ${JSON.stringify(v)}`);
      break;
  }
  return change;
}

/**
 * Throws ControlError UNAVAILABLE when the scenario's story has taken `key` away for the minute after `snapshot`
 * (the one a change made now applies to). The engine, the CLI and the server all check through here.
 */
export function checkAvailable(snapshot: Pick<Snapshot, 'unavailable' | 'minute'>, key: string): void {
  const reason = snapshot.unavailable?.[key];
  if (reason !== undefined)
    throw new ControlError(
      ControlErrorCode.UNAVAILABLE,
      key,
      reason,
      `${key} is unavailable after minute ${snapshot.minute} (${reason})`,
    );
}

/** Parses the CLI's text form of a value (on/off, immediate/backoff, press, numbers), validates it and returns it snapped. */
export function parseControlValue(model: SimMeta, key: string, text: string): ControlValue {
  const def = controlDef(model, key);
  let value: ControlValue;
  if (def.kind === 'number') value = text.trim() === '' ? NaN : Number(text);
  else if (def.kind === 'bool') value = text === 'on' ? true : text === 'off' ? false : text;
  else value = text;
  return validateChange(model, { key, value }).value;
}

/** Text form of a value, as the CLI takes it. */
export function formatControlValue(value: ControlValue): string {
  return typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value);
}

/** A valid value of a control drawn with the given uniform [0, 1) source (for load generators and property tests). */
export function randomControlValue(def: ControlDef, uniform01: () => number): ControlValue {
  switch (def.kind) {
    case 'number': {
      const steps = Math.round((def.max - def.min) / def.step);
      // Rounded to the step's decimals so that min + k·step lands exactly on the grid.
      return Number((def.min + Math.floor(uniform01() * (steps + 1)) * def.step).toFixed(6));
    }
    case 'bool':
      return uniform01() < 0.5;
    case 'enum':
      return def.options[Math.floor(uniform01() * def.options.length)];
    case 'action':
      return PRESS;
  }
}
