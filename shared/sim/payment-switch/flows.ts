// One minute of the fluid model (spec §1–9): who is offered, admitted, queued, screened, answered,
// approved and retried. Expected values throughout; the only random inputs (the arrival count and
// group B's latency) are drawn by the caller.
import { expectedMinExp, expTail, lognormalCdf, lognormalMean, lognormalPartialMean, normalCdf } from '../math.ts';
import {
  AMOUNT_MU,
  AMOUNT_SIGMA,
  D_PRIME,
  FRAUD_AMOUNT_MU,
  GROUP_B_SHARE,
  ISSUER_MEAN_S,
  MAX_RETRIES,
  RETRY_P,
  REVERSAL_S,
  SHED_ADMIT,
  SLOTS_PER_SERVER,
  STEP_UP_PASS_FRAUD,
  STEP_UP_PASS_GENUINE,
  SWITCH_TIME_S,
} from './constants.ts';
import { queueMinute } from './queue.ts';
import {
  CLASSES,
  FRESH,
  ISSUER_FAILED,
  KINDS,
  ROWS,
  isFraud,
  isGroupB,
  rowOf,
  schedule,
  takeDue,
  waiting,
} from './retries.ts';

export interface MinuteInputs {
  serversInService: number;
  shedding: boolean;
  backoff: boolean;
  threshold: number;
  band: number;
  timeoutS: number;
  standInLimit: number;
  /** Transactions arriving this minute (drawn or expected). */
  newCount: number;
  fraudShare: number;
  /**
   * Share of the fraud that comes from an adapting attack whose scores are N(waveMean, 1) instead of
   * N(d′, 1) [design]; 0 (the default) in the seed's scenarios.
   */
  waveShare?: number;
  waveMean?: number;
  /** [design] In a full shift's sale, genuine scores are N(genuineMean, 1): shoppers buy what they never buy (default 0). */
  genuineMean?: number;
  /** Group B's mean issuer latency this minute (s). */
  groupBMeanS: number;
  /** false on the opening screen: nothing is scheduled. */
  scheduleRetries: boolean;
  /**
   * [design] In the full shifts, the share of the retry probability a customer keeps when answered "try again
   * later" by shedding, and when the retry is backed off (absent: the seed's 0.95 for every failure).
   */
  shedRetry?: number;
  backoffRetry?: number;
  /**
   * [design] In the full shifts, shedding first turns away this share of the new transactions — the
   * low-priority ones (recurring billing) — whatever the load; they are not retried today.
   */
  lowPriority?: number;
  /** [design] A full shift's retry probability after a technical failure (its shoppers go elsewhere sooner). */
  retryP?: number;
  /** [design] Whether a full shift's "issuer unavailable" declines are retried (false: the decline says not to). */
  retryUnavailable?: boolean;
  /**
   * [design] Bot attempts this minute (a full shift's scalper bots): low priority, they hold a slot like a
   * healthy issuer's transaction and bring nothing; shedding turns them all away.
   */
  bots?: number;
}

export interface MinuteFlows {
  newTps: number;
  offeredTps: number;
  retryTps: number;
  shedTps: number;
  queueDropShare: number;
  slotsBusy: number;
  authTimeMs: number;
  goodApproval: number;
  healthyApproval: number;
  fraudRateBp: number;
  goodDeclinedByRule: number;
  stepUpShare: number;
  fraudStopped: number;
  issuerTimeoutShare: number;
  standInTps: number;
  /** This minute's amounts and counts, added to the running totals by the caller. */
  standInVolume: number;
  /** Stand-in volume of genuine customers (the rest of the exposure is fraud). */
  genuineStandInVolume: number;
  /** Attempts sent to a step-up challenge (genuine and fraud). */
  challenged: number;
  /** Share of this minute's attempts that failed technically (shed, dropped, issuer unavailable). */
  failShare: number;
  /** Whether anything was approved, whether any genuine (group A) customer's transaction ended: else a share has nothing under it. */
  anyApproved: boolean;
  anyGenuineEnded: boolean;
  anyHealthyEnded: boolean;
  fraudApprovedAmount: number;
  genuineLost: number;
  awaitingRetry: number;
}

// Scratch space reused by every call (a step is synchronous), so a minute allocates almost nothing.
/** Offered attempts per (class, kind, attempt number 0..3): index (cls·KINDS + kind)·4 + attempt. */
const offered = new Float64Array(CLASSES * KINDS * (MAX_RETRIES + 1));
/** Failures to retry per row of the retry cohorts. */
const toRetry = new Float64Array(ROWS);

const off = (cls: number, kind: number, attempt: number): number => (cls * KINDS + kind) * (MAX_RETRIES + 1) + attempt;

/**
 * Simulates one minute. Takes the retries due this minute out of `retries` and schedules this
 * minute's failures into it; `retries` must be the step's own copy.
 */
export function simulateMinute(inp: MinuteInputs, retries: number[]): MinuteFlows {
  const { threshold: t, band: b, timeoutS: T, standInLimit: limit } = inp;

  // §1 Arrivals, split into the four classes (less the low-priority ones shedding turns away in a shift).
  offered.fill(0);
  const turned = inp.shedding && inp.lowPriority ? inp.newCount * inp.lowPriority : 0;
  const n = inp.newCount - turned;
  const f = inp.fraudShare;
  const shareB = GROUP_B_SHARE;
  offered[off(0, FRESH, 0)] = n * (1 - f) * (1 - shareB);
  offered[off(1, FRESH, 0)] = n * (1 - f) * shareB;
  offered[off(2, FRESH, 0)] = n * f * (1 - shareB);
  offered[off(3, FRESH, 0)] = n * f * shareB;

  // §2 Retries due this minute join them.
  let due = 0;
  for (let cls = 0; cls < CLASSES; cls++) {
    for (let kind = 0; kind < KINDS; kind++) {
      for (let k = 1; k <= MAX_RETRIES; k++) {
        const x = takeDue(retries, rowOf(cls, kind, k));
        if (x !== 0) {
          offered[off(cls, kind, k)] = x;
          due += x;
        }
      }
    }
  }
  const total = n + due;

  // §3 Screening probabilities of a fresh attempt (genuine score N(0,1), fraud N(d′,1)).
  const g0 = inp.genuineMean ?? 0;
  const gDecl = 1 - normalCdf(t - g0);
  const gChal = normalCdf(t - g0) - normalCdf(t - b - g0);
  const gFail = (1 - STEP_UP_PASS_GENUINE) * gChal;
  const gFwd = 1 - gDecl - gFail;
  let fDecl = 1 - normalCdf(t - D_PRIME);
  let fChal = normalCdf(t - D_PRIME) - normalCdf(t - b - D_PRIME);
  const w = inp.waveShare ?? 0;
  if (w > 0) {
    // A mixture: the adapting attack's scores sit at waveMean, the everyday fraud's at d′.
    const mw = inp.waveMean ?? D_PRIME;
    fDecl = (1 - w) * fDecl + w * (1 - normalCdf(t - mw));
    fChal = (1 - w) * fChal + w * (normalCdf(t - mw) - normalCdf(t - b - mw));
  }
  const fFail = (1 - STEP_UP_PASS_FRAUD) * fChal;
  const fFwd = 1 - fDecl - fFail;

  // §4 Issuer answers: timeout share and slot time per forwarded attempt, by group.
  const mB = inp.groupBMeanS;
  const tauA = expTail(ISSUER_MEAN_S, T);
  const tauB = expTail(mB, T);
  const holdA = expectedMinExp(ISSUER_MEAN_S, T) + tauA * REVERSAL_S;
  const holdB = expectedMinExp(mB, T) + tauB * REVERSAL_S;

  // §7–8 Amounts: stand-in share and volume under the limit; mean amount of a retry known to be over it.
  const gMean = lognormalMean(AMOUNT_MU, AMOUNT_SIGMA);
  const fMean = lognormalMean(FRAUD_AMOUNT_MU, AMOUNT_SIGMA);
  const gUnder = lognormalCdf(limit, AMOUNT_MU, AMOUNT_SIGMA);
  const fUnder = lognormalCdf(limit, FRAUD_AMOUNT_MU, AMOUNT_SIGMA);
  const gVol = lognormalPartialMean(limit, AMOUNT_MU, AMOUNT_SIGMA);
  const fVol = lognormalPartialMean(limit, FRAUD_AMOUNT_MU, AMOUNT_SIGMA);
  const gOver = gUnder < 1 - 1e-12 ? (gMean - gVol) / (1 - gUnder) : limit;
  const fOver = fUnder < 1 - 1e-12 ? (fMean - fVol) / (1 - fUnder) : limit;

  // §4 Slot holding time S = 80 ms + Σ (forwarded share of admitted) × (E[min(L,T)] + P(L>T)·80 ms).
  let fwdHold = 0;
  let fwdWeight = 0;
  let fwdTimeout = 0;
  let freshGenuine = 0;
  let freshFraud = 0;
  for (let cls = 0; cls < CLASSES; cls++) {
    const fraud = isFraud(cls);
    const hold = isGroupB(cls) ? holdB : holdA;
    const tau = isGroupB(cls) ? tauB : tauA;
    let freshX = 0;
    let knownX = 0;
    for (let k = 0; k <= MAX_RETRIES; k++) {
      freshX += offered[off(cls, FRESH, k)];
      knownX += offered[off(cls, ISSUER_FAILED, k)];
    }
    const fw = freshX * (fraud ? fFwd : gFwd) + knownX;
    fwdHold += fw * hold;
    fwdWeight += fw;
    fwdTimeout += fw * tau;
    if (fraud) freshFraud += freshX;
    else freshGenuine += freshX;
  }
  const holdS = SWITCH_TIME_S + (total > 0 ? fwdHold / total : 0);

  // §5 Capacity and shedding.
  const slots = inp.serversInService * SLOTS_PER_SERVER;
  const lambda = total / 60;
  const mu = slots / holdS;
  const admitted = inp.shedding ? Math.min(lambda, SHED_ADMIT * mu) : lambda;
  const shedShare = lambda > 0 ? 1 - admitted / lambda : 0;
  // Bots share the slots unless shedding turns them away (they hold one as long as a healthy issuer's answer).
  const botRate = !inp.shedding && inp.bots ? inp.bots / 60 : 0;
  const botHold = SWITCH_TIME_S + expectedMinExp(ISSUER_MEAN_S, T);

  // §6 Queue.
  const q =
    botRate > 0
      ? queueMinute(admitted + botRate, (admitted * holdS + botRate * botHold) / (admitted + botRate), slots)
      : queueMinute(admitted, holdS, slots);
  const gotSlot = (1 - shedShare) * (1 - q.drop);

  // §7 and §9 per cohort: outcomes, amounts, failures. The seed's customers all retry alike ("patient");
  // a full shift's give up more after shedding and while backed off.
  const patient = inp.shedRetry === undefined && inp.backoffRetry === undefined;
  const shedKeep = inp.shedRetry ?? 1;
  const pOther = (inp.retryP ?? RETRY_P) * (inp.backoff ? (inp.backoffRetry ?? 1) : 1);
  toRetry.fill(0);
  let genApproved = 0;
  let genEnded = 0;
  let genApprovedA = 0;
  let genEndedA = 0;
  let amountApproved = 0;
  let fraudAmount = 0;
  let standInCount = 0;
  let standInVolume = 0;
  let genuineStandIn = 0;
  let challenged = 0;
  let failed = 0;
  for (let cls = 0; cls < CLASSES; cls++) {
    const fraud = isFraud(cls);
    const groupB = isGroupB(cls);
    const tau = groupB ? tauB : tauA;
    const decl = fraud ? fDecl : gDecl;
    const fail = fraud ? fFail : gFail;
    const fwdP = fraud ? fFwd : gFwd;
    const under = fraud ? fUnder : gUnder;
    const vol = fraud ? fVol : gVol;
    const mean = fraud ? fMean : gMean;
    const over = fraud ? fOver : gOver;
    const chal = fraud ? fChal : gChal;
    let approved = 0;
    let ended = 0;
    let amount = 0;
    for (let kind = 0; kind < KINDS; kind++) {
      for (let k = 0; k <= MAX_RETRIES; k++) {
        const x = offered[off(cls, kind, k)];
        if (x === 0) continue;
        const slot = x * gotSlot;
        const blocked = x - slot; // shed or dropped in the queue: technical, keeps its kind
        let fw: number;
        let businessDecline = 0;
        if (kind === FRESH) {
          fw = slot * fwdP;
          businessDecline = slot * (decl + fail);
          challenged += slot * chal;
        } else {
          fw = slot; // already screened: same score, same decision
        }
        const timedOut = fw * tau;
        const answered = fw - timedOut;
        // Only a fresh attempt can be under the limit: an issuer-failed retry was over it.
        const standIn = kind === FRESH ? timedOut * under : 0;
        const unavailable = timedOut - standIn;
        approved += answered + standIn;
        amount += answered * (kind === FRESH ? mean : over) + (kind === FRESH ? timedOut * vol : 0);
        standInCount += standIn;
        if (kind === FRESH) {
          standInVolume += timedOut * vol;
          if (!fraud) genuineStandIn += timedOut * vol;
        }
        failed += blocked + unavailable;
        ended += businessDecline;
        if (k >= MAX_RETRIES) {
          ended += blocked + unavailable;
        } else if (patient) {
          toRetry[rowOf(cls, kind, k + 1)] += RETRY_P * blocked;
          toRetry[rowOf(cls, ISSUER_FAILED, k + 1)] += RETRY_P * unavailable;
          ended += (1 - RETRY_P) * (blocked + unavailable);
        } else {
          // Shed attempts are told "try again later" at once; the rest were dropped in the queue.
          const shed = x * shedShare;
          const pShed = pOther * shedKeep;
          const pGone = inp.retryUnavailable === false ? 0 : pOther;
          toRetry[rowOf(cls, kind, k + 1)] += pShed * shed + pOther * (blocked - shed);
          toRetry[rowOf(cls, ISSUER_FAILED, k + 1)] += pGone * unavailable;
          ended += (1 - pShed) * shed + (1 - pOther) * (blocked - shed) + (1 - pGone) * unavailable;
        }
      }
    }
    ended += approved;
    amountApproved += amount;
    if (fraud) {
      fraudAmount += amount;
    } else {
      genApproved += approved;
      genEnded += ended;
      if (!groupB) {
        genApprovedA += approved;
        genEndedA += ended;
      }
    }
  }

  let awaiting = 0;
  if (inp.scheduleRetries) {
    for (let row = 0; row < ROWS; row++) schedule(retries, row, toRetry[row], inp.backoff);
    awaiting = waiting(retries);
  }

  // Turned away today: genuine customers lost, fraud stopped (neither retried).
  if (turned > 0) {
    genEnded += turned * (1 - f);
    genEndedA += turned * (1 - f) * (1 - shareB);
    failed += turned;
  }
  const freshAll = freshGenuine + freshFraud;
  // Screened mix = fresh offered mix (admission and queue are blind to class); with nothing offered, the arrival mix.
  const fraudMix = freshAll > 0 ? freshFraud / freshAll : f;
  const tauMix = (1 - shareB) * tauA + shareB * tauB;
  const bots = (inp.bots ?? 0) / 60;
  return {
    newTps: inp.newCount / 60,
    offeredTps: lambda + turned / 60 + bots,
    retryTps: due / 60,
    shedTps: lambda - admitted + turned / 60 + (inp.shedding ? bots : 0),
    queueDropShare: q.drop,
    slotsBusy: q.busy,
    authTimeMs: (q.wait + holdS) * 1000,
    goodApproval: genEnded > 1e-9 ? genApproved / genEnded : 0,
    healthyApproval: genEndedA > 1e-9 ? genApprovedA / genEndedA : 0,
    fraudRateBp: amountApproved > 0 ? (fraudAmount / amountApproved) * 1e4 : 0,
    goodDeclinedByRule: gDecl,
    stepUpShare: (1 - fraudMix) * gChal + fraudMix * fChal,
    fraudStopped: fDecl + fFail,
    issuerTimeoutShare: fwdWeight > 0 ? fwdTimeout / fwdWeight : tauMix,
    standInTps: standInCount / 60,
    standInVolume,
    genuineStandInVolume: genuineStandIn,
    challenged,
    failShare: total + turned > 0 ? failed / (total + turned) : 0,
    anyApproved: amountApproved > 0,
    anyGenuineEnded: genEnded > 1e-9,
    anyHealthyEnded: genEndedA > 1e-9,
    fraudApprovedAmount: fraudAmount,
    genuineLost: genEnded - genApproved,
    awaitingRetry: awaiting,
  };
}
