// The web service's words: the seed page's wording (spec/web-service.md restates it).
import { m } from '$lib/paraglide/messages.js';
import { webServiceMeta as model } from '$shared/sim/web-service/meta.ts';
import type { Sim, SimText } from './types.ts';

export const webServiceText: SimText = {
  name: m.sim_web_service,
  story: m.ws_story,
  learn: [m.ws_learn_1, m.ws_learn_2, m.ws_learn_3],
  notice: m.ws_notice,
  roles: { fleet: m.ws_role_fleet, cache: m.ws_role_cache, traffic: m.ws_role_traffic, release: m.ws_role_release },
  controls: {
    minInstances: { label: m.ws_ctl_minInstances, help: m.ws_ctl_minInstances_help },
    autoscaling: { label: m.ws_ctl_autoscaling, help: m.ws_ctl_autoscaling_help },
    targetUtilization: { label: m.ws_ctl_targetUtilization, help: m.ws_ctl_targetUtilization_help },
    cacheTtlS: { label: m.ws_ctl_cacheTtlS, help: m.ws_ctl_cacheTtlS_help },
    warmUp: { label: m.ws_ctl_warmUp, help: m.ws_ctl_warmUp_help },
    shedLowPriority: { label: m.ws_ctl_shedLowPriority, help: m.ws_ctl_shedLowPriority_help },
    heavyFeature: { label: m.ws_ctl_heavyFeature, help: m.ws_ctl_heavyFeature_help },
    rollback: { label: m.ws_ctl_rollback, help: m.ws_ctl_rollback_help },
  },
  indicators: {
    errorRate: m.ws_ind_errorRate,
    p99Ms: m.ws_ind_p99Ms,
    dbLoad: m.ws_ind_dbLoad,
    utilization: m.ws_ind_utilization,
    burnRate1h: m.ws_ind_burnRate1h,
    requestsPerSec: m.ws_ind_requestsPerSec,
    instancesServing: m.ws_ind_instancesServing,
    instancesBooting: m.ws_ind_instancesBooting,
    cacheHitRatio: m.ws_ind_cacheHitRatio,
    throttledShare: m.ws_ind_throttledShare,
    fleetCostPerHour: m.ws_ind_fleetCostPerHour,
    costSoFar: m.ws_ind_costSoFar,
    cachedAnswerAgeS: m.ws_ind_cachedAnswerAgeS,
    badBuildShare: m.ws_ind_badBuildShare,
    recommendationsAvailable: m.ws_ind_recommendationsAvailable,
    errorBudgetRemaining: m.ws_ind_errorBudgetRemaining,
  },
  scenarios: {
    free: { name: m.ws_scn_free, brief: m.ws_scn_free_brief, goals: {} },
    'bad-deploy': {
      name: m.ws_scn_bad_deploy,
      brief: m.ws_scn_bad_deploy_brief,
      goals: { budget: m.ws_goal_bad_deploy_budget, p99: m.ws_goal_bad_deploy_p99, cost: m.ws_goal_bad_deploy_cost },
    },
    'traffic-surge': {
      name: m.ws_scn_traffic_surge,
      brief: m.ws_scn_traffic_surge_brief,
      goals: { errorRate: m.ws_goal_traffic_surge_errorRate, p99: m.ws_goal_traffic_surge_p99, cost: m.ws_goal_traffic_surge_cost },
    },
    'cache-flush': {
      name: m.ws_scn_cache_flush,
      brief: m.ws_scn_cache_flush_brief,
      goals: { errorRate: m.ws_goal_cache_flush_errorRate, dbLoad: m.ws_goal_cache_flush_dbLoad, hitRatio: m.ws_goal_cache_flush_hitRatio },
    },
  },
  events: {
    deploy: m.ws_evt_deploy,
    page: m.ws_evt_page,
    'surge-start': m.ws_evt_surge_start,
    'cache-flush': m.ws_evt_cache_flush,
    'instances-ready': (p) => m.ws_evt_instances_ready({ count: p.count ?? '' }),
    'rollback-done': m.ws_evt_rollback_done,
    'warmup-done': m.ws_evt_warmup_done,
  },
};

export const webServiceSim: Sim = { id: 'web-service', model, text: webServiceText };
