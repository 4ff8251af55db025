// Role policies: what one student's seat does, minute by minute, from what that seat's desk shows. Pure and
// deterministic given a seed: the autopilot of an empty seat, rehearsal bots and the design report call them.
import type { ControlChange, SimulatorId, Snapshot } from '../sim/types.ts';

/**
 * careful — reads its figures and acts as the brief teaches; late — the same reading, but it waits for a
 * signal to hold two minutes running before acting; careless — answers the banners by reflex, leaves its
 * settings in place once set, and misreads now and then.
 */
export type Skill = 'careful' | 'late' | 'careless';
export const SKILLS: readonly Skill[] = ['careful', 'late', 'careless'];

/** Minutes between seeing a minute and the change taking effect beyond the earliest (0–3). */
export const MAX_DELAY = 3;

export interface Seat {
  model: SimulatorId;
  role: string;
  skill: Skill;
  /** 0–3: the seat's changes apply this many minutes after the earliest it could act. */
  delay: number;
  /** Seeds the seat's own randomness (a careless seat's slips); the same seed plays the same way. */
  seed: number;
}

/** A seat's memory between minutes: plain JSON. */
export interface SeatState {
  /** Changes decided, waiting for their minute (the seat's delay). */
  queue: { due: number; changes: ControlChange[] }[];
  /** The seat's generator state (mulberry32). */
  rng: number;
  /** What the role's policy remembers (its own small state). */
  memo: Record<string, number | boolean | string>;
}

/** What a role's policy gets each minute: its split view, the team's banners in it, and its seat. */
export interface Reading {
  /** This minute's snapshot as the role's desk shows it (split view: its own figures, the headline, the ledger). */
  view: Snapshot;
  /** The minute before, as the desk showed it (for trends); undefined at minute 0. */
  prev: Snapshot | undefined;
  skill: Skill;
  /** A uniform draw in [0, 1) from the seat's own generator. */
  random(): number;
}

/** One role's policy: the changes to its own controls it decides on this minute's reading. */
export type Brain = (
  r: Reading,
  memo: Record<string, number | boolean | string>,
) => { changes: ControlChange[]; memo: Record<string, number | boolean | string> };
