// Constants of the payment-switch model. The seed calls them "illustrative values for a mid-sized
// switch, not data from any real network": every one is an assumption (docs/models/payment-switch.md).

/** Connection slots per server. */
export const SLOTS_PER_SERVER = 32;
/** Minutes an added server boots before it takes traffic. */
export const BOOT_MINUTES = 5;
/** Price of one server-hour (u), booting servers included. */
export const COST_PER_SERVER_HOUR = 6;

/** Switch processing time every admitted attempt holds a slot for (s). */
export const SWITCH_TIME_S = 0.08;
/** A reversal after an issuer timeout costs this much more switch time (s). */
export const REVERSAL_S = 0.08;
/** Longest wait for a slot before the attempt is dropped (s). */
export const QUEUE_TIMEOUT_S = 2;
/** Wasted-work share ω: above capacity this share of the work is spent on requests later dropped. */
export const WASTED_WORK = 0.3;
/** Shedding admits at most this share of the service rate. */
export const SHED_ADMIT = 0.9;
/** Floor κ (1/s) of the decay rate in the queue tail, the seam between the two queue regimes. */
export const KAPPA_PER_S = 2;

/** Mean issuer latency of both groups on a normal day (s). */
export const ISSUER_MEAN_S = 0.25;
/** Share of traffic whose issuers are in group B. */
export const GROUP_B_SHARE = 0.25;
/** Group B's mean latency moves by up to ±15 % each minute. */
export const GROUP_B_WOBBLE = 0.15;

/** New transactions per second on a normal day. */
export const BASE_RATE_TPS = 400;
/** Burstiness of the minute's count: relative sd of the multiplicative factor. */
export const ARRIVAL_BURST = 0.03;
/** Time constant of the surge's first-order lag (minutes). */
export const SURGE_LAG_MIN = 2;
/** Share of fraudulent transactions on a normal day. */
export const BASE_FRAUD_SHARE = 0.001;

/** Score separation d′ between genuine N(0,1) and fraud N(d′,1) scores. */
export const D_PRIME = 2.5;
export const STEP_UP_PASS_GENUINE = 0.85;
export const STEP_UP_PASS_FRAUD = 0.05;

/** Amounts are lognormal: median 40 u (μ = ln 40), σ = 1; fraud amounts ×1.5 (μ = ln 60). */
export const AMOUNT_MU = Math.log(40);
export const FRAUD_AMOUNT_MU = Math.log(60);
export const AMOUNT_SIGMA = 1;

/** A technical failure is retried with this probability (the rest of the merchants give up). */
export const RETRY_P = 0.95;
/** At most this many retries per transaction. */
export const MAX_RETRIES = 3;
/** Backoff policy: mean delay (minutes) before retry 1, 2, 3. */
export const BACKOFF_MEAN_MIN = [1, 2, 4] as const;

// The team's ledger (docs/models/payment-switch.md, "The ledger"). Not in the seed: every figure is an
// assumption chosen so that the server bill, lost customers, friction and fraud all weigh in play.
/** Margin lost on every good customer declined or failed for good (u per transaction). */
export const MARGIN_PER_TX = 0.005;
/** Share of the approved fraud amount the switch bears (chargebacks it cannot pass on). */
export const FRAUD_LIABILITY = 0.000625;
/** Cost of one step-up challenge (message, customer's time), u per challenged attempt. */
export const STEP_UP_COST = 0.001;
/** Share of the genuine stand-in volume never recovered (the issuer would have declined it). */
export const STAND_IN_LOSS = 0.000075;
