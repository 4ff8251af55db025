// The payment switch's role policies. Each reads only what its role's desk shows in split view — the
// headline (approval, authorization time, fraud rate, slots busy), the ledger, its own figures — and the
// banners, and sets only its own controls. "careful" plays as docs/models/payment-switch.md teaches;
// "late" acts only on a signal seen two minutes running; "careless" answers banners by reflex and forgets
// to undo.
import type { ControlChange } from '../sim/types.ts';
import { has, ind, num, set, steady } from './reading.ts';
import type { Brain } from './types.ts';

/** Transactions per second one server carries at 90 % of its slots on a shift's normal minutes (0.39 s a slot). */
const PER_SERVER_TPS = 74;
/** The switch's own fleet in a full shift: never given back. */
const OWN = 14;
/** A normal day's new transactions per second. */
const BASE_TPS = 400;

/**
 * Scaling: order the servers an announced sale needs (its size × a normal day's traffic; a small sale the own
 * fleet carries) so that they serve from the minute it starts — they boot five, its traffic takes a few minutes
 * to build up, and every minute a rented server runs is billed — and give them back as the sale's traffic falls
 * away after its end (the announcement's schedule says when). Careless: orders a big fleet at every announcement
 * and keeps it.
 */
export const scaling: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const m = r.view.minute;
  const tps = ind(r, 'newTps');
  const booting = ind(r, 'serversBooting');
  const servers = r.view.controls.servers as number;
  const sale = r.view.events.find((e) => e.kind === 'sale-announced');
  if (sale) {
    const size = typeof sale.size === 'number' ? sale.size : 3;
    memo.need = Math.max(OWN, Math.min(24, Math.ceil((size * BASE_TPS) / PER_SERVER_TPS)));
    memo.orderAt = m + (typeof sale.in === 'number' ? Math.max(0, sale.in - 6) : 0);
    memo.phase = 'announced';
  }
  if (r.skill === 'careless') {
    if (sale) set(r, out, 'servers', 22);
    return { changes: out, memo };
  }
  if (has(r, 'sale-end')) memo.phase = 'over';
  if (memo.phase === 'announced' && m >= num(memo, 'orderAt')) memo.phase = 'on';
  let want = OWN;
  if (memo.phase === 'on') want = num(memo, 'need', OWN);
  else if (memo.phase === 'over') {
    // The sale's traffic falls away over minutes: keep what it still needs (a tenth to spare).
    want = Math.max(OWN, Math.min(servers, Math.ceil((tps * 1.1) / PER_SERVER_TPS)));
    if (want === OWN) memo.phase = 'done';
  }
  if (want > servers || (want < servers && booting === 0)) set(r, out, 'servers', want);
  return { changes: out, memo };
};

/**
 * Shedding: shed while a swarm of bots is on — a drop announces how many are expected, a few the slots
 * absorb — since shedding also turns the low-priority tenth of the customers away; stop once what it sheds
 * is back to that tenth. Let customers retry at once (those told to wait give up more). Careless: sheds
 * with backoff at every drop and never undoes it.
 */
export const shedding: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const busy = ind(r, 'slotsBusy');
  const offered = ind(r, 'offeredTps');
  const shed = ind(r, 'shedTps');
  const drop = ind(r, 'queueDropShare');
  const drop0 = r.view.events.find((e) => e.kind === 'drop-announced');
  if (r.skill === 'careless') {
    if (drop0) {
      set(r, out, 'shedding', true);
      set(r, out, 'retryPolicy', 'backoff');
    }
    return { changes: out, memo };
  }
  // A drop announced with a swarm: shed from its announcement (the bots come a few minutes after) until they
  // are gone — what is shed is back to the low-priority tenth, three minutes after they came.
  if (drop0 && typeof drop0.bots === 'number' && drop0.bots >= 1) {
    memo.from = r.view.minute;
    memo.botsAt = -1;
  }
  if (has(r, 'bots-start') && num(memo, 'from', -1) >= 0) memo.botsAt = r.view.minute;
  const on = r.view.controls.shedding === true;
  const from = num(memo, 'from', -1);
  const botsAt = num(memo, 'botsAt', -1);
  const waiting = from >= 0 && r.view.minute >= from && botsAt < 0;
  const gone = botsAt >= 0 && r.view.minute - botsAt >= 3 && shed < 0.13 * Math.max(1, offered);
  const overloaded = busy >= 0.99 && drop > 0.05;
  if (waiting || (botsAt >= 0 && !gone) || steady(r, memo, 'over', overloaded)) set(r, out, 'shedding', true);
  else if (on && (gone || (from < 0 && busy < 0.85))) {
    set(r, out, 'shedding', false);
    memo.from = -1;
    memo.botsAt = -1;
  }
  set(r, out, 'retryPolicy', 'immediate');
  return { changes: out, memo };
};

/**
 * Fraud: when card testers are reported, a step-up band sized to the attack (wider as the fraud rate climbs), off
 * when the cards are blocked; while a sale is on, the threshold raised — its shoppers buy what they never buy, so
 * a screen tuned for an ordinary day declines them — with the band below it reaching down to the testers.
 * Careless: lowers the threshold at the banner and leaves it there.
 */
export const fraud: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const rate = ind(r, 'fraudRateBp');
  if (has(r, 'card-testing-start')) memo.attack = true;
  if (has(r, 'card-testing-over')) memo.attack = false;
  if (has(r, 'surge-start')) memo.sale = true;
  if (has(r, 'sale-end')) memo.sale = false;
  if (r.skill === 'careless') {
    if (has(r, 'card-testing-start')) set(r, out, 'fraudThreshold', 2.2);
    return { changes: out, memo };
  }
  const sale = memo.sale === true;
  let band = 0;
  if (memo.attack === true) {
    const want = rate > 60 ? 1.6 : rate > 35 ? 1.2 : 1;
    if (want > num(memo, 'band') && steady(r, memo, 'fraudUp', true)) memo.band = want;
    band = num(memo, 'band', 1) + (sale ? 1 : 0);
  } else {
    memo.fraudUp = 0;
    memo.band = 0;
  }
  set(r, out, 'fraudThreshold', sale ? 4 : 3);
  set(r, out, 'stepUpBand', band);
  return { changes: out, memo };
};

/**
 * Stand-in: a failing group B (its latency past the few seconds a straining issuer holds at) gets a short timeout
 * and stand-in for small amounts; a straining one is waited for while the slots allow it. While a sale is on (from
 * a minute before it starts) a slow B is cut short harder — its answers would fill the slots the sale needs — and
 * stood in for the amounts a sale's basket makes worth it. Careless: stands in for everything at the banner.
 */
export const standin: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const lat = ind(r, 'groupBLatencyMs');
  const busy = ind(r, 'slotsBusy');
  if (r.skill === 'careless') {
    if (has(r, 'issuer-slow')) {
      set(r, out, 'issuerTimeoutS', 1);
      set(r, out, 'standInLimit', 200);
    }
    return { changes: out, memo };
  }
  const announced = r.view.events.find((e) => e.kind === 'sale-announced');
  if (announced && typeof announced.in === 'number') memo.saleAt = r.view.minute + announced.in - 1;
  if (r.view.minute >= num(memo, 'saleAt', 99)) {
    memo.sale = true;
    memo.saleAt = 99;
  }
  if (has(r, 'sale-end')) memo.sale = false;
  const sale = memo.sale === true;
  if (sale && lat > 1500) {
    set(r, out, 'issuerTimeoutS', 1);
    set(r, out, 'standInLimit', 150);
  } else if (steady(r, memo, 'fail', lat > 4500)) {
    set(r, out, 'issuerTimeoutS', 1.5);
    set(r, out, 'standInLimit', 60);
  } else if (lat > 4500) {
    // A late seat waits for a second look.
  } else if (lat > 900) {
    // Straining: wait for its answers while the slots allow it, bridge with a shorter timeout while they do not.
    set(r, out, 'issuerTimeoutS', busy > 0.92 ? 2 : Math.max(3, Math.min(8, Math.round(lat / 300) / 2)));
    set(r, out, 'standInLimit', busy > 0.92 ? 60 : 0);
  } else {
    set(r, out, 'issuerTimeoutS', 4);
    set(r, out, 'standInLimit', 0);
  }
  return { changes: out, memo };
};
