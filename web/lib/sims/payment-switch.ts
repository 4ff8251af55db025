// The payment switch's words: the seed page's wording (spec/payment-switch.md restates it).
import { m } from '$lib/paraglide/messages.js';
import { paymentSwitchMeta as model } from '$shared/sim/payment-switch/meta.ts';
import type { Sim, SimText } from './types.ts';

export const paymentSwitchText: SimText = {
  name: m.sim_payment_switch,
  story: m.ps_story,
  learn: [m.ps_learn_1, m.ps_learn_2, m.ps_learn_3],
  notice: m.ps_notice,
  roles: {
    scaling: m.ps_role_scaling,
    shedding: m.ps_role_shedding,
    fraud: m.ps_role_fraud,
    standin: m.ps_role_standin,
  },
  controls: {
    servers: { label: m.ps_ctl_servers, help: m.ps_ctl_servers_help },
    shedding: { label: m.ps_ctl_shedding, help: m.ps_ctl_shedding_help },
    retryPolicy: {
      label: m.ps_ctl_retryPolicy,
      help: m.ps_ctl_retryPolicy_help,
      options: { immediate: m.ps_opt_retryPolicy_immediate, backoff: m.ps_opt_retryPolicy_backoff },
    },
    fraudThreshold: { label: m.ps_ctl_fraudThreshold, help: m.ps_ctl_fraudThreshold_help },
    stepUpBand: { label: m.ps_ctl_stepUpBand, help: m.ps_ctl_stepUpBand_help },
    issuerTimeoutS: { label: m.ps_ctl_issuerTimeoutS, help: m.ps_ctl_issuerTimeoutS_help },
    standInLimit: { label: m.ps_ctl_standInLimit, help: m.ps_ctl_standInLimit_help },
  },
  indicators: {
    goodApproval: m.ps_ind_goodApproval,
    authTimeMs: m.ps_ind_authTimeMs,
    fraudRateBp: m.ps_ind_fraudRateBp,
    slotsBusy: m.ps_ind_slotsBusy,
    healthyApproval: m.ps_ind_healthyApproval,
    goodDeclinedByRule: m.ps_ind_goodDeclinedByRule,
    stepUpShare: m.ps_ind_stepUpShare,
    fraudStopped: m.ps_ind_fraudStopped,
    newTps: m.ps_ind_newTps,
    offeredTps: m.ps_ind_offeredTps,
    retryTps: m.ps_ind_retryTps,
    shedTps: m.ps_ind_shedTps,
    queueDropShare: m.ps_ind_queueDropShare,
    issuerTimeoutShare: m.ps_ind_issuerTimeoutShare,
    standInTps: m.ps_ind_standInTps,
    serversInService: m.ps_ind_serversInService,
    serversBooting: m.ps_ind_serversBooting,
    costRatePerHour: m.ps_ind_costRatePerHour,
    costSoFar: m.ps_ind_costSoFar,
    standInExposure: m.ps_ind_standInExposure,
    fraudApprovedSoFar: m.ps_ind_fraudApprovedSoFar,
    goodLostSoFar: m.ps_ind_goodLostSoFar,
    awaitingRetry: m.ps_ind_awaitingRetry,
    groupBLatencyMs: m.ps_ind_groupBLatencyMs,
    ledgerCustomers: m.ps_ind_ledgerCustomers,
    ledgerFriction: m.ps_ind_ledgerFriction,
    ledgerFraud: m.ps_ind_ledgerFraud,
    ledgerStandIn: m.ps_ind_ledgerStandIn,
    ledgerTotal: m.ps_ind_ledgerTotal,
  },
  scenarios: {
    free: { name: m.ps_scn_free, brief: m.ps_scn_free_brief, goals: {} },
    'sale-surge': {
      name: m.ps_scn_sale_surge,
      brief: m.ps_scn_sale_surge_brief,
      goals: {
        approval: m.ps_goal_sale_surge_approval,
        authTime: m.ps_goal_sale_surge_authTime,
        cost: m.ps_goal_sale_surge_cost,
      },
    },
    'fraud-wave': {
      name: m.ps_scn_fraud_wave,
      brief: m.ps_scn_fraud_wave_brief,
      goals: {
        fraudRate: m.ps_goal_fraud_wave_fraudRate,
        approval: m.ps_goal_fraud_wave_approval,
        declinedByRule: m.ps_goal_fraud_wave_declinedByRule,
      },
    },
    'issuer-outage': {
      name: m.ps_scn_issuer_outage,
      brief: m.ps_scn_issuer_outage_brief,
      goals: {
        healthyApproval: m.ps_goal_issuer_outage_healthyApproval,
        approval: m.ps_goal_issuer_outage_approval,
        exposure: m.ps_goal_issuer_outage_exposure,
        cost: m.ps_goal_issuer_outage_cost,
      },
    },
    'black-friday': {
      name: m.ps_scn_black_friday,
      brief: m.ps_scn_black_friday_brief,
      goals: {
        approval: m.ps_goal_black_friday_approval,
        healthyApproval: m.ps_goal_black_friday_healthyApproval,
        fraudRate: m.ps_goal_black_friday_fraudRate,
        stepUp: m.ps_goal_black_friday_stepUp,
        cost: m.ps_goal_black_friday_cost,
        exposure: m.ps_goal_black_friday_exposure,
      },
    },
    'sale-day': {
      name: m.ps_scn_sale_day,
      brief: m.ps_scn_sale_day_brief,
      goals: {
        approval: m.ps_goal_sale_day_approval,
        fraudRate: m.ps_goal_sale_day_fraudRate,
        stepUp: m.ps_goal_sale_day_stepUp,
        cost: m.ps_goal_sale_day_cost,
      },
    },
    'issuer-trouble': {
      name: m.ps_scn_issuer_trouble,
      brief: m.ps_scn_issuer_trouble_brief,
      goals: {
        approval: m.ps_goal_issuer_trouble_approval,
        fraudRate: m.ps_goal_issuer_trouble_fraudRate,
        stepUp: m.ps_goal_issuer_trouble_stepUp,
        cost: m.ps_goal_issuer_trouble_cost,
        exposure: m.ps_goal_issuer_trouble_exposure,
      },
    },
  },
  events: {
    'sale-start': m.ps_evt_sale_start,
    'sale-end': m.ps_evt_sale_end,
    'fraud-wave-start': m.ps_evt_fraud_wave_start,
    'issuer-slow': (p) => m.ps_evt_issuer_slow({ group: p.group ?? '' }),
    'servers-ready': (p) => m.ps_evt_servers_ready({ count: p.count ?? '' }),
    'retry-storm': m.ps_evt_retry_storm,
    'retry-storm-over': m.ps_evt_retry_storm_over,
    // A shift's announcement says how big and when; a retired shift's said neither.
    'sale-announced': (p) =>
      p.size !== undefined ? m.ps_sale_announced_size({ size: p.size, in: p.in ?? '' }) : m.ps_evt_sale_announced(),
    'drop-announced': (p) => m.ps_evt_drop_announced({ bots: p.bots ?? '' }),
    'bots-start': m.ps_evt_bots_start,
    'surge-start': m.ps_evt_surge_start,
    'flash-sale-start': m.ps_evt_flash_sale_start,
    'card-testing-start': m.ps_evt_card_testing_start,
    'card-testing-over': m.ps_evt_card_testing_over,
  },
  unavailable: {},
  collapse: m.ps_collapse,
};

export const paymentSwitchSim: Sim = { id: 'payment-switch', model, text: paymentSwitchText };
