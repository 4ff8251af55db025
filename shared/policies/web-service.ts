// The web service's role policies. Each reads only what its role's desk shows in split view — the headline
// (error rate, p99, database load, utilization), the ledger, its own figures — and the banners, and sets only
// its own controls. "careful" plays as docs/models/web-service.md teaches; "late" acts only on a signal seen
// two minutes running; "careless" answers banners by reflex and forgets to undo.
import { PRESS, type ControlChange } from '../sim/types.ts';
import { has, ind, num, set, steady } from './reading.ts';
import type { Brain } from './types.ts';

/** Requests a second one instance serves at 80 % of its workers on a normal minute (74 ms a request). */
const PER_INSTANCE = 180;
/** What an instance carries on a normal day: the fleet's floor between surges (about 75 % of its workers). */
const BASE_PER_INSTANCE = 160;
/** What an instance is sized for in a surge: near its workers' limit (a warm cache makes the surge's requests cheap). */
const SURGE_PER_INSTANCE = 210;
/** The share of its workers an instance is sized for when the fleet reads its own load. */
const CARRY_UTIL = 0.75;
/** The share of the low-priority traffic shed the minute a swarm of crawlers is announced. */
const SWARM_SHED = 0.6;
/** Minutes before an announced surge's start at which its fleet is ordered: the boot and two to spare. */
const LEAD = 6;

/**
 * Fleet: size the fleet by hand — lean between surges (a floor sized for the opening minutes' requests); for an
 * announced surge as big as the banner says, ordered to be in service just before it starts (the banner says when;
 * instances boot for four minutes) and kept until the surge has ended; otherwise for the load its instances carry — and give instances back once the load has
 * fallen for three minutes, so that the next shift takes over a fleet of normal size. Slow answers from a
 * struggling database or a bad build are not the fleet's to fix, nor crawlers the traffic role sheds. Careless:
 * doubles the fleet at a surge and keeps it.
 */
export const fleet: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const min = r.view.controls.minInstances as number;
  const rps = ind(r, 'requestsPerSec');
  // A normal day's requests: what the opening minutes show (a surge is a multiple of it); the fleet runs lean for
  // them between surges.
  if (r.view.minute <= 2) memo.normal = Math.max(num(memo, 'normal'), rps);
  const base = Math.ceil(num(memo, 'normal', rps) / BASE_PER_INSTANCE);
  if (r.skill === 'careless') {
    if (has(r, 'surge-announced')) set(r, out, 'minInstances', Math.min(40, 2 * min));
    return { changes: out, memo };
  }
  // The surges announced and not yet over, oldest first (a surge may be announced the minute the last one ends):
  // the minute each starts and the fleet it needs as its banner says.
  const surges: [number, number][] =
    typeof memo.surges === 'string' && memo.surges !== ''
      ? memo.surges.split(',').map((x) => x.split(':').map(Number) as [number, number])
      : [];
  if (has(r, 'surge-end')) surges.shift();
  for (const e of r.view.events)
    if (e.kind === 'surge-announced')
      surges.push([
        r.view.minute + (typeof e.in === 'number' ? e.in : 0),
        Math.ceil(((typeof e.size === 'number' ? e.size : 2) * num(memo, 'normal', rps)) / SURGE_PER_INSTANCE),
      ]);
  memo.surges = surges.map((x) => x.join(':')).join(',');
  // A surge's fleet is ordered to be in service just before it starts (instances boot for four minutes; ordered
  // earlier, they would be paid for idle).
  const due = surges.filter(([at]) => at - r.view.minute <= LEAD).map(([, n]) => n);
  // The load the serving instances carry, as instances at 75 % of their workers (an overloaded fleet reads 100 %:
  // then by the requests).
  const serving = ind(r, 'instancesServing');
  const util = ind(r, 'utilization');
  const carried = util >= 0.97 ? Math.ceil(rps / PER_INSTANCE) : Math.ceil((serving * util) / CARRY_UTIL);
  const need = Math.min(40, Math.max(base, carried, ...due));
  if (need > min) {
    if (steady(r, memo, 'up', true)) set(r, out, 'minInstances', need);
    memo.down = 0;
  } else {
    memo.up = 0;
    memo.down = need < min ? num(memo, 'down') + 1 : 0;
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
  // An announced surge will bring pages the cache does not hold: the database needs the long TTL through it (the
  // last surge may end the minute the next is announced).
  if (has(r, 'surge-end')) memo.surge = false;
  if (has(r, 'surge-announced')) memo.surge = true;
  if (r.skill === 'careless') {
    if (has(r, 'cache-flush')) out.push({ key: 'warmUp', value: PRESS });
    if (has(r, 'db-failover')) set(r, out, 'cacheTtlS', 300);
    return { changes: out, memo };
  }
  if (memo.failover === true || memo.surge === true || steady(r, memo, 'dbHot', db > 0.8))
    set(r, out, 'cacheTtlS', 120);
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
 * Traffic: at a swarm's banner shed most of the low-priority traffic at once, then trim it while the database has
 * room (more while it is still near its limit), and stop a minute after the swarm has gone; switch the heavy feature
 * off while the database is near its limit. Careless: sheds everything at a crawler and never stops.
 */
export const traffic: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const db = ind(r, 'dbLoad');
  if (r.skill === 'careless') {
    if (has(r, 'crawler-start')) set(r, out, 'shedLowPriority', 1);
    return { changes: out, memo };
  }
  // A crawler's banner means a swarm: shed most of the low-priority traffic at once (its requests all miss the cache
  // and bring nothing; one decisive move holds even when it lands late), then trim it while the database has room
  // and add more while it is still near its limit; stop a minute after the swarm has gone.
  if (has(r, 'crawler-start')) memo.crawler = true;
  if (has(r, 'crawler-end')) {
    memo.crawler = false;
    memo.crawlEnd = r.view.minute;
  }
  const shed = r.view.controls.shedLowPriority as number;
  let next = 0;
  if (has(r, 'crawler-start')) next = Math.max(shed, SWARM_SHED);
  else if (memo.crawler === true || r.view.minute - num(memo, 'crawlEnd', -99) < 1) {
    if (steady(r, memo, 'crawl', db > 0.85)) next = Math.min(1, shed + 0.2);
    else next = db < 0.4 && memo.crawler === true ? Math.max(0, shed - 0.1) : shed;
  }
  set(r, out, 'shedLowPriority', next);
  // The heavy feature (a third query per request) goes off while the database is near its limit, and comes back once
  // it has room again and no swarm is running: switching it back on into a swarm is what tips the database over.
  if (steady(r, memo, 'dbCrit', db > 0.9)) {
    set(r, out, 'heavyFeature', false);
    memo.offAt = r.view.minute;
  } else if (db < 0.6 && memo.crawler !== true && r.view.minute - num(memo, 'offAt', -99) >= 3)
    set(r, out, 'heavyFeature', true);
  return { changes: out, memo };
};

/**
 * Release: after each deploy watch the error rate; roll back a build that raises it, and leave one that fails
 * nothing alone (a rollback pays for a second fleet and empties the cache the build filled, and a good build
 * rolled back has to ship again). Careless: rolls back at every deploy.
 */
export const release: Brain = (r, memo0) => {
  const memo = { ...memo0 };
  const out: ControlChange[] = [];
  const share = ind(r, 'badBuildShare');
  const err = r.view.indicators.errorRate ?? 0;
  if (has(r, 'deploy')) {
    memo.deployAt = r.view.minute;
    memo.pressed = false;
    // The errors before this build: what the fleet or the database was failing anyway (not the build's).
    memo.before = num(memo, 'last');
  }
  memo.last = err;
  if (r.skill === 'careless') {
    if (has(r, 'deploy')) out.push({ key: 'rollback', value: PRESS });
    return { changes: out, memo };
  }
  // A bad build fails several percent of the answers on its share of the traffic: a tenth of a percent more than
  // before it went out is already its mark — unless the fleet or the database is overloaded, whose errors are not
  // the build's.
  const overloaded = ind(r, 'utilization') > 0.97 || ind(r, 'dbLoad') > 0.97;
  const suspicious = share > 0 && !overloaded && err > 1.2 * num(memo, 'before') + 0.004 * share + 0.0005;
  if (memo.pressed !== true && steady(r, memo, 'bad', suspicious)) {
    out.push({ key: 'rollback', value: PRESS });
    memo.pressed = true;
  }
  return { changes: out, memo };
};
