// The payment switch's role policies. Each reads only what its role's desk shows in split view — the
// headline (approval, authorization time, fraud rate, slots busy), the ledger, its own figures — and the
// banners, and sets only its own controls. "careful" plays as docs/models/payment-switch.md teaches;
// "late" acts only on a signal seen two minutes running; "careless" answers banners by reflex and forgets
// to undo.
import type { ControlChange } from '../sim/types.ts';
import { has, ind, num, set, steady } from './reading.ts';
import type { Brain } from './types.ts';

/** Transactions per second one server carries at 85 % of its slots on a shift's normal minutes (0.39 s a slot). */
const PER_SERVER_TPS = 70;
/** The switch's own fleet in a full shift: never given back. */
const OWN = 14;
/** New transactions a second above which a sale's traffic is on (one and a half normal days). */
const SALE_TPS = 600;

/**
 * Scaling: order servers for an announced sale as big as marketing says, six minutes before it starts (they
 * boot five), and give them back as soon as its traffic has fallen away. The own fleet carries everything else. Careless: orders a big fleet at every
 * announcement and keeps it.
 */
export const scaling: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const tps = ind(r, 'newTps');
  const busy = ind(r, 'slotsBusy');
  const serving = ind(r, 'serversInService');
  const booting = ind(r, 'serversBooting');
  const servers = r.view.controls.servers as number;
  const sale = r.view.events.find((e) => e.kind === 'sale-announced');
  if (sale) {
    memo.saleSize = typeof sale.size === 'number' ? sale.size : 2;
    // Servers boot five minutes: order them six before the sale starts (at once if that is past).
    memo.orderAt = r.view.minute + (typeof sale.in === 'number' ? Math.max(0, sale.in - 8) : 0);
    memo.phase = 'announced';
  }
  if (r.view.events.some((e) => e.kind === 'drop-announced' || e.kind === 'bots-start')) memo.botsAt = r.view.minute;
  if (r.skill === 'careless') {
    if (sale) set(r, out, 'servers', 20);
    return { changes: out, memo };
  }
  let want = OWN;
  if (memo.phase === 'announced' && r.view.minute >= num(memo, 'orderAt')) memo.phase = 'ordered';
  if (memo.phase === 'ordered' && tps > SALE_TPS) memo.phase = 'on';
  if (memo.phase === 'on' && steady(r, memo, 'over', tps < SALE_TPS)) memo.phase = 'done';
  if (memo.phase === 'ordered' || memo.phase === 'on')
    want = Math.ceil((num(memo, 'saleSize', 2) * 400) / PER_SERVER_TPS);
  // Slots busy for minutes with no sale and no bots: slow issuers hold them — more servers, kept while busy.
  const bots = r.view.minute - num(memo, 'botsAt', -99) <= 8;
  const hot = busy > 0.85 && !bots && memo.phase !== 'on';
  memo.hot = hot ? num(memo, 'hot') + 1 : 0;
  if (num(memo, 'hot') >= (r.skill === 'late' ? 3 : 2))
    memo.extra = Math.max(num(memo, 'extra'), Math.ceil((serving * Math.max(busy, 0.95)) / 0.75) - OWN);
  if (busy < 0.5 && booting === 0) memo.extra = 0;
  want = Math.max(OWN, Math.min(24, want + num(memo, 'extra')));
  if (want !== servers && (want > servers || booting === 0)) set(r, out, 'servers', want);
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
  // A drop announced with a swarm: shed from two minutes on (the bots come three or four after) until they
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
 * Fraud: when card testers are reported, a step-up band sized to the attack (wider as the fraud rate
 * climbs), the threshold left at 3σ where the testers have nothing to learn; the band off when the attack is
 * over. Careless: lowers the threshold at the banner and leaves it there.
 */
export const fraud: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const rate = ind(r, 'fraudRateBp');
  if (has(r, 'card-testing-start')) memo.attack = true;
  if (has(r, 'card-testing-over')) memo.attack = false;
  if (r.skill === 'careless') {
    if (has(r, 'card-testing-start')) set(r, out, 'fraudThreshold', 2.2);
    return { changes: out, memo };
  }
  if (memo.attack === true) {
    const band = rate > 60 ? 1.6 : rate > 35 ? 1.2 : 1;
    const cur = r.view.controls.stepUpBand as number;
    if (band > cur && steady(r, memo, 'fraudUp', true)) set(r, out, 'stepUpBand', band);
  } else {
    memo.fraudUp = 0;
    set(r, out, 'stepUpBand', 0);
  }
  set(r, out, 'fraudThreshold', 3);
  return { changes: out, memo };
};

/**
 * Stand-in: a failing group B (its latency past the few seconds a straining issuer holds at) gets a short
 * timeout and stand-in for small amounts; a straining one is waited for while the slots allow it. Careless:
 * stands in for everything at the banner.
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
  // Stand in only for small amounts: every stand-in costs the network's fee and the issuers' unpaid share.
  const limit = 60;
  if (steady(r, memo, 'fail', lat > 4500)) {
    // Failing: a short timeout, so its slow answers stop filling the slots.
    set(r, out, 'issuerTimeoutS', 1.5);
    set(r, out, 'standInLimit', limit);
  } else if (lat > 4500) {
    // A late seat waits for a second look.
  } else if (lat > 900) {
    // Straining: wait for its answers while the slots allow it, bridge with a shorter timeout while they do not.
    set(r, out, 'issuerTimeoutS', busy > 0.92 ? 2 : Math.max(3, Math.min(8, Math.round(lat / 300) / 2)));
    set(r, out, 'standInLimit', busy > 0.92 ? limit : 0);
  } else {
    set(r, out, 'issuerTimeoutS', 4);
    set(r, out, 'standInLimit', 0);
  }
  return { changes: out, memo };
};
