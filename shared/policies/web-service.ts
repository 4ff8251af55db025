// The web service's role policies. Each reads only what its role's desk shows in split view — the headline
// (error rate, p99, database load, utilization), the ledger, its own figures — and the banners, and sets only
// its own controls. "careful" plays as docs/models/web-service.md teaches; "late" acts only on a signal seen
// two minutes running; "careless" answers banners by reflex and forgets to undo.
import { PRESS, type ControlChange } from '../sim/types.ts';
import { has, ind, num, set, steady } from './reading.ts';
import type { Brain } from './types.ts';

/** Requests a second one instance serves at 70 % of its workers on a normal minute (74 ms a request). */
const PER_INSTANCE = 180;
/** What an instance is sized for in a surge: nearer its workers' limit (the surge's new pages slow it less once warm). */
const SURGE_PER_INSTANCE = 190;

/**
 * Fleet: size the fleet by hand for the requests it serves — for an announced surge as big as the banner says,
 * ordered at once (instances boot for four minutes) and kept until the surge has ended; otherwise at 80 % of
 * the workers of the instances — and give instances back once the requests have fallen for three minutes;
 * slow answers from a struggling database or a bad build are not the fleet's to fix. Careless: doubles the
 * fleet at a surge and keeps it.
 */
export const fleet: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const min = r.view.controls.minInstances as number;
  const rps = ind(r, 'requestsPerSec');
  if (num(memo, 'base') === 0) memo.base = min;
  // A normal day's requests: what the opening minutes show (a surge is a multiple of it).
  if (r.view.minute <= 2) memo.normal = Math.max(num(memo, 'normal'), rps);
  if (r.skill === 'careless') {
    if (has(r, 'surge-announced')) set(r, out, 'minInstances', Math.min(40, 2 * min));
    return { changes: out, memo };
  }
  const ann = r.view.events.find((e) => e.kind === 'surge-announced');
  if (ann) {
    memo.surge = true;
    memo.surgeNeed = Math.ceil(
      ((typeof ann.size === 'number' ? ann.size : 2) * num(memo, 'normal', rps)) / SURGE_PER_INSTANCE,
    );
  }
  if (has(r, 'surge-end')) memo.surge = false;
  const need = Math.min(
    40,
    Math.max(num(memo, 'base'), Math.ceil(rps / PER_INSTANCE), memo.surge === true ? num(memo, 'surgeNeed') : 0),
  );
  if (need > min) {
    if (steady(r, memo, 'up', true)) set(r, out, 'minInstances', need);
    memo.down = 0;
  } else {
    memo.up = 0;
    memo.down = need < min - 1 ? num(memo, 'down') + 1 : 0;
    if (num(memo, 'down') >= 3) set(r, out, 'minInstances', need);
  }
  return { changes: out, memo };
};

/**
 * Cache: a long TTL while the database is short of capacity (a failover, or its load critical), the usual one
 * after — stale answers cost; the warm-up job when the cache has been emptied and the database can take it.
 * Careless: presses warm-up at every flush and keeps a long TTL.
 */
export const cache: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const db = ind(r, 'dbLoad');
  const hit = ind(r, 'cacheHitRatio');
  if (has(r, 'db-failover')) memo.failover = true;
  if (has(r, 'db-restored')) memo.failover = false;
  // An announced surge will bring pages the cache does not hold: the database needs the long TTL through it.
  if (has(r, 'surge-announced')) memo.surge = true;
  if (has(r, 'surge-end')) memo.surge = false;
  if (r.skill === 'careless') {
    if (has(r, 'cache-flush')) out.push({ key: 'warmUp', value: PRESS });
    if (has(r, 'db-failover')) set(r, out, 'cacheTtlS', 300);
    return { changes: out, memo };
  }
  if (memo.failover === true || memo.surge === true || steady(r, memo, 'dbHot', db > 0.8))
    set(r, out, 'cacheTtlS', 200);
  else if (db < 0.6) set(r, out, 'cacheTtlS', 60);
  // Warm the cache once it has been emptied (a flush, a rollback, new pages) and the database has room.
  const warming = num(memo, 'warmUntil') > r.view.minute;
  if (!warming && (has(r, 'surge-start') || hit < 0.65) && db < 0.75) {
    if (steady(r, memo, 'cold', true)) {
      out.push({ key: 'warmUp', value: PRESS });
      memo.warmUntil = r.view.minute + 7;
    }
  } else steady(r, memo, 'cold', false);
  return { changes: out, memo };
};

/**
 * Traffic: shed the low-priority traffic while a crawler runs (its requests bring nothing) and stop when it
 * is gone; switch the heavy feature off only while the database is critical. Careless: sheds everything at a
 * crawler and never stops.
 */
export const traffic: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const db = ind(r, 'dbLoad');
  if (has(r, 'crawler-start')) memo.crawler = true;
  if (has(r, 'crawler-end')) memo.crawler = false;
  if (r.skill === 'careless') {
    if (has(r, 'crawler-start')) set(r, out, 'shedLowPriority', 1);
    return { changes: out, memo };
  }
  if (memo.crawler === true) {
    if (steady(r, memo, 'crawl', true)) set(r, out, 'shedLowPriority', 1);
  } else {
    memo.crawl = 0;
    set(r, out, 'shedLowPriority', 0);
  }
  // A rollback's switch empties the cache of the build it removes: the feature (a third query per request) goes
  // off the minute before it, and comes back once the database has room again.
  const switching = r.view.detail.rollbackMinutesLeft === 1;
  if (switching || steady(r, memo, 'dbCrit', db > 0.97)) {
    set(r, out, 'heavyFeature', false);
    memo.offAt = r.view.minute;
  } else if (db < 0.7 && r.view.minute - num(memo, 'offAt', -99) >= 3) set(r, out, 'heavyFeature', true);
  return { changes: out, memo };
};

/**
 * Release: after each deploy watch the error rate; roll back a build that raises it, and leave a good one
 * alone (a rollback empties the cache the build filled). Careless: rolls back at every deploy.
 */
export const release: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const share = ind(r, 'badBuildShare');
  const err = r.view.indicators.errorRate ?? 0;
  if (has(r, 'deploy')) {
    memo.deployAt = r.view.minute;
    memo.pressed = false;
  }
  if (r.skill === 'careless') {
    if (has(r, 'deploy')) out.push({ key: 'rollback', value: PRESS });
    return { changes: out, memo };
  }
  // A bad build's errors are 5 % of its share of the traffic: a tenth of a percent is already its mark.
  const suspicious = share > 0 && err > 0.004 * share + 0.0005;
  if (memo.pressed !== true && steady(r, memo, 'bad', suspicious)) {
    out.push({ key: 'rollback', value: PRESS });
    memo.pressed = true;
  }
  return { changes: out, memo };
};
