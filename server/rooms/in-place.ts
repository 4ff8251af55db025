// Plain data written over plain data of the same shape, in place. A team's latest minute is held in one of two
// slots of objects the room owns (round.ts, `playTeam`): each minute is simulated as fresh objects as always, then
// copied into the slot the current state does not use. The fresh objects die at once, young; the slots live in
// the old generation, where writing a number into a field that holds numbers changes the number's box in place
// and allocates nothing. A minute no longer leaves ~60 young objects alive per team for the next scavenge to copy
// (docs/performance.md, "The fourteenth stretch").
//
// Only numbers, strings, booleans, null, arrays and plain objects (the simulation's state is plain JSON data).
// What is written is equal to its source: the same keys in the same order (so the same JSON text), the same
// numbers by `Object.is` (−0 included). A part whose shape differs (an optional key present this minute and not
// the last, a list of another length) is replaced by a copy of its own instead.
//
// A slot's object is made by a constructor of its own shape (its keys in order), with a writer of the same shape:
// both compiled once per shape, with each key written by name. Only numbers are ever written into a number's
// field there, so V8 keeps the number in the field's own box and a write changes that box. A copy by spreading or
// key by key shares its hidden classes with every other object of those keys (the simulation's literals, parsed
// JSON); there the field may hold a tagged pointer to a box, and every write makes a new box that survives with
// the slot (measured: 4–29 of a snapshot's 29 numbers, depending on what the process had done before).

type Plain = Record<string, unknown>;

interface Shape {
  readonly keys: readonly string[];
  readonly make: new (src: Plain) => Plain;
  readonly fill: (dst: Plain, src: Plain) => void;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** A list of numbers only: copied element by element, no object inside. */
function isNumbers(a: readonly unknown[]): a is number[] {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'number') return false;
  return true;
}

/** Shapes by their keys in order, and of every object they made. Bounded: see `shapeFor`. */
const shapes = new Map<string, Shape>();
const shapeOfSlot = new WeakMap<object, Shape>();
const MAX_SHAPES = 512;

function compile(keys: readonly string[]): Shape {
  // Each key is written by name (a string literal in the source, JSON-quoted), so every access is to a known field.
  const at = keys.map((k) => `[${JSON.stringify(k)}]`);
  const make = new Function(
    'own',
    `return function Slot(src) {\n${at.map((a) => `  { const v = src${a}; this${a} = typeof v === 'object' && v !== null ? own(v) : v; }`).join('\n')}\n};`,
  )(ownedCopy) as Shape['make'];
  // Plain objects to everything that reads them; the constructor still gives them hidden classes of their own.
  make.prototype = Object.prototype;
  const fill = new Function(
    'refill',
    `return function fill(dst, src) {\n${at.map((a) => `  { const v = src${a}; dst${a} = typeof v === 'object' && v !== null ? refill(dst${a}, v) : v; }`).join('\n')}\n};`,
  )(refill) as Shape['fill'];
  return { keys, make, fill };
}

/** The shape of `o`'s keys, compiled on first sight; null past MAX_SHAPES (such objects are copied by spreading). */
function shapeFor(o: object): Shape | null {
  const keys = Object.keys(o);
  const id = keys.join('\u0000');
  let shape = shapes.get(id);
  if (!shape && shapes.size < MAX_SHAPES) {
    shape = compile(keys);
    shapes.set(id, shape);
  }
  return shape ?? null;
}

/** A deep copy that shares nothing with `v`, its objects made by their shape's constructor. */
export function ownedCopy<T>(v: T): T {
  if (!isObject(v)) return v;
  if (Array.isArray(v)) return (isNumbers(v) ? v.slice() : v.map(ownedCopy)) as T;
  const shape = shapeFor(v);
  if (shape) {
    const o = new shape.make(v as Plain);
    shapeOfSlot.set(o, shape);
    return o as T;
  }
  const o: Plain = { ...(v as Plain) };
  for (const k in o) if (isObject(o[k])) o[k] = ownedCopy(o[k]);
  return o as T;
}

/**
 * Numbers over a list of the same length, until something in `from` is not a number (false: the caller writes the
 * rest). Its own function: its element accesses see lists of numbers only.
 */
function copiedNumbers(into: unknown[], from: readonly unknown[]): boolean {
  for (let i = 0; i < from.length; i++) {
    const v = from[i];
    if (typeof v !== 'number') return false;
    into[i] = v;
  }
  return true;
}

/** Whether `o`'s own keys are `keys`, in order (a walk of its keys, nothing allocated: this runs per object a minute). */
function hasKeys(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== keys[i++]) return false;
  return i === keys.length;
}

/**
 * `from` written over `into`, which must be owned by the caller (an `ownedCopy`, or what this returned before) and
 * share nothing with `from`. Returns `into`, or where its shape differs from `from`'s, an owned copy of `from`.
 * Never reads `into` for a value: afterwards it equals `from` whatever it held.
 */
export function refill<T>(into: unknown, from: T): T {
  if (!isObject(from)) return from;
  if (into === from) throw new Error('refill: a slot must not share its objects with what is written into it');
  if (Array.isArray(from)) {
    if (!Array.isArray(into) || into.length !== from.length) return ownedCopy(from);
    if (!copiedNumbers(into, from)) for (let i = 0; i < from.length; i++) into[i] = refill(into[i], from[i]);
    return into as T;
  }
  const shape = isObject(into) ? shapeOfSlot.get(into) : undefined;
  if (!shape || !hasKeys(from, shape.keys)) return ownedCopy(from);
  shape.fill(into as Plain, from as Plain);
  return into as T;
}
