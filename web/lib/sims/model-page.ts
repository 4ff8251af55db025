// The "model behind the numbers" of each simulator: every relation with its sources, the constants
// (all assumptions), as the seed pages and the spec state them; then what is ours and not the seed's
// (docs/models/*.md, marked [design]): the team's ledger, line by line with its constant, and the full
// shifts' shocks, collapse and split view, each with its reason.
import type { SimulatorId } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';

type Msg = () => string;
export interface Relation {
  id: string;
  text: Msg;
  formula?: Msg;
  sources: string[];
  /** Rests on the seed's illustrative calibration. */
  assumption?: boolean;
}
/** One line of the team's ledger: the indicator it is, what each minute adds, and its constant. */
export interface LedgerLine {
  key: string;
  adds: Msg;
  constant: Msg;
  /** The constant is the seed's own (the server bill); else an assumption of ours. */
  seed?: boolean;
}
export interface ModelPage {
  intro: Msg;
  assumptionNote: Msg;
  relations: Relation[];
  constants: Msg[];
  randomness: Msg;
  sources: Record<string, Msg>;
  /** The ledger [design]: why it is there, its lines, and what follows from it. */
  ledgerIntro: Msg;
  ledger: LedgerLine[];
  ledgerNotes: Msg[];
  /** The full shifts' relations [design], each with its reason. */
  designIntro: Msg;
  design: { id: string; text: Msg; formula?: Msg }[];
}

const paymentSwitch: ModelPage = {
  intro: m.ps_model_intro,
  assumptionNote: m.ps_model_assumption_note,
  relations: [
    { id: 'arrivals', text: m.ps_rel_arrivals, formula: m.ps_rel_arrivals_f, sources: ['seed'], assumption: true },
    { id: 'score', text: m.ps_rel_score, formula: m.ps_rel_score_f, sources: ['roc'], assumption: true },
    { id: 'optimal', text: m.ps_rel_optimal, sources: ['roc'] },
    { id: 'stepup', text: m.ps_rel_stepup, formula: m.ps_rel_stepup_f, sources: ['seed'], assumption: true },
    { id: 'latency', text: m.ps_rel_latency, formula: m.ps_rel_latency_f, sources: ['harchol'], assumption: true },
    { id: 'little', text: m.ps_rel_little, formula: m.ps_rel_little_f, sources: ['little'] },
    { id: 'erlang', text: m.ps_rel_erlang, formula: m.ps_rel_erlang_f, sources: ['erlang', 'harchol'] },
    {
      id: 'overload',
      text: m.ps_rel_overload,
      formula: m.ps_rel_overload_f,
      sources: ['harchol', 'retry'],
      assumption: true,
    },
    { id: 'retries', text: m.ps_rel_retries, formula: m.ps_rel_retries_f, sources: ['retry'], assumption: true },
    { id: 'standin', text: m.ps_rel_standin, formula: m.ps_rel_standin_f, sources: ['lognormal'] },
    { id: 'fraudrate', text: m.ps_rel_fraudrate, formula: m.ps_rel_fraudrate_f, sources: ['seed'] },
  ],
  constants: [
    m.ps_const_slots,
    m.ps_const_boot,
    m.ps_const_price,
    m.ps_const_switch,
    m.ps_const_queue,
    m.ps_const_latency,
    m.ps_const_amounts,
    m.ps_const_waste,
    m.ps_const_shed,
    m.ps_const_base,
    m.ps_const_dprime,
    m.ps_const_stepup,
    m.ps_const_retry,
  ],
  randomness: m.ps_randomness,
  ledgerIntro: m.ps_ledger_intro,
  ledger: [
    { key: 'ledgerCustomers', adds: m.ps_ledger_customers, constant: m.ps_ledger_customers_c },
    { key: 'ledgerFriction', adds: m.ps_ledger_friction, constant: m.ps_ledger_friction_c },
    { key: 'ledgerFraud', adds: m.ps_ledger_fraud, constant: m.ps_ledger_fraud_c },
    { key: 'ledgerStandIn', adds: m.ps_ledger_standin, constant: m.ps_ledger_standin_c },
    { key: 'costSoFar', adds: m.ps_ledger_bill, constant: m.ps_ledger_bill_c, seed: true },
  ],
  ledgerNotes: [m.ps_ledger_note_threshold, m.ps_ledger_note_extremes],
  designIntro: m.ps_design_intro,
  design: [
    { id: 'drawn', text: m.ps_design_drawn },
    { id: 'announced', text: m.ps_design_announced },
    { id: 'flash', text: m.ps_design_flash },
    { id: 'cardtest', text: m.ps_design_cardtest },
    { id: 'adapt', text: m.ps_design_adapt, formula: m.ps_design_adapt_f },
    { id: 'issuer', text: m.ps_design_issuer },
    { id: 'resend', text: m.ps_design_resend },
    { id: 'collapse', text: m.ps_design_collapse },
    { id: 'split', text: m.ps_design_split },
  ],
  sources: {
    harchol: m.ps_src_harchol,
    little: m.ps_src_little,
    erlang: m.ps_src_erlang,
    roc: m.ps_src_roc,
    retry: m.ps_src_retry,
    lognormal: m.ps_src_lognormal,
    seed: m.ps_src_seed,
  },
};

const webService: ModelPage = {
  intro: m.ws_model_intro,
  assumptionNote: m.ws_model_assumption_note,
  relations: [
    { id: 'arrivals', text: m.ws_rel_arrivals, formula: m.ws_rel_arrivals_f, sources: ['seed'], assumption: true },
    { id: 'shedding', text: m.ws_rel_shedding, formula: m.ws_rel_shedding_f, sources: ['seed'], assumption: true },
    { id: 'cache', text: m.ws_rel_cache, formula: m.ws_rel_cache_f, sources: ['ttl'] },
    { id: 'db', text: m.ws_rel_db, formula: m.ws_rel_db_f, sources: ['seed'], assumption: true },
    { id: 'erlang', text: m.ws_rel_erlang, formula: m.ws_rel_erlang_f, sources: ['erlang'] },
    { id: 'p99', text: m.ws_rel_p99, formula: m.ws_rel_p99_f, sources: ['erlang', 'seed'] },
    { id: 'little', text: m.ws_rel_little, formula: m.ws_rel_little_f, sources: ['little'] },
    { id: 'budget', text: m.ws_rel_budget, formula: m.ws_rel_budget_f, sources: ['sre', 'workbook'] },
    {
      id: 'autoscaling',
      text: m.ws_rel_autoscaling,
      formula: m.ws_rel_autoscaling_f,
      sources: ['seed'],
      assumption: true,
    },
  ],
  constants: [
    m.ws_const_workers,
    m.ws_const_app,
    m.ws_const_queries,
    m.ws_const_objects,
    m.ws_const_warmup,
    m.ws_const_timeout,
    m.ws_const_lowprio,
    m.ws_const_badbuild,
    m.ws_const_rollback,
    m.ws_const_price,
    m.ws_const_scalein,
    m.ws_const_base,
  ],
  randomness: m.ws_randomness,
  ledgerIntro: m.ws_ledger_intro,
  ledger: [
    { key: 'lostToErrors', adds: m.ws_ledger_errors, constant: m.ws_ledger_errors_c },
    { key: 'lostToShedding', adds: m.ws_ledger_shedding, constant: m.ws_ledger_shedding_c },
    { key: 'lostToFeatureOff', adds: m.ws_ledger_feature, constant: m.ws_ledger_feature_c },
    { key: 'stalePenalty', adds: m.ws_ledger_stale, constant: m.ws_ledger_stale_c },
    { key: 'costSoFar', adds: m.ws_ledger_bill, constant: m.ws_ledger_bill_c, seed: true },
    { key: 'budgetBurnCost', adds: m.ws_ledger_budget, constant: m.ws_ledger_budget_c },
  ],
  ledgerNotes: [m.ws_ledger_note_extremes],
  designIntro: m.ws_design_intro,
  design: [
    { id: 'drawn', text: m.ws_design_drawn },
    { id: 'surge', text: m.ws_design_surge },
    { id: 'cold', text: m.ws_design_cold },
    { id: 'crawler', text: m.ws_design_crawler },
    { id: 'failover', text: m.ws_design_failover },
    { id: 'flush', text: m.ws_design_flush },
    { id: 'keys', text: m.ws_design_keys },
    { id: 'script', text: m.ws_design_script },
    { id: 'autoscaling', text: m.ws_design_autoscaling },
    { id: 'collapse', text: m.ws_design_collapse },
    { id: 'split', text: m.ws_design_split },
  ],
  sources: {
    sre: m.ws_src_sre,
    workbook: m.ws_src_workbook,
    erlang: m.ws_src_erlang,
    little: m.ws_src_little,
    ttl: m.ws_src_ttl,
    seed: m.ws_src_seed,
  },
};

export const modelPages: Record<SimulatorId, ModelPage> = {
  'payment-switch': paymentSwitch,
  'web-service': webService,
};
