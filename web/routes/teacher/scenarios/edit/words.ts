// The editor's words for the format's names: shock kinds, their fields, the setting's terms, goal aggregates
// and the checks' depths (message functions, so the bundler keeps only these and svelte-check proves each).
import { m } from '$lib/paraglide/messages.js';

type Msg = () => string;

export const KIND_WORDS: Record<string, Msg> = {
  sale: m.editor_kind_sale,
  flash: m.editor_kind_flash,
  bots: m.editor_kind_bots,
  attack: m.editor_kind_attack,
  issuer: m.editor_kind_issuer,
  backlog: m.editor_kind_backlog,
  surge: m.editor_kind_surge,
  crawl: m.editor_kind_crawl,
  db: m.editor_kind_db,
  flush: m.editor_kind_flush,
  'no-autoscaler': m.editor_kind_no_autoscaler,
  train: m.editor_kind_train,
};

/** An episode's fields: the words, and whether the figure is whole minutes. */
export const FIELD_WORDS: Record<string, { label: Msg; minutes?: boolean }> = {
  start: { label: m.editor_field_start, minutes: true },
  length: { label: m.editor_field_length, minutes: true },
  warn: { label: m.editor_field_warn, minutes: true },
  learn: { label: m.editor_field_learn, minutes: true },
  ramp: { label: m.editor_field_ramp, minutes: true },
  every: { label: m.editor_field_every, minutes: true },
  size: { label: m.editor_field_size },
  share: { label: m.editor_field_share },
  meanS: { label: m.editor_field_mean_s },
  cold: { label: m.editor_field_cold },
  error: { label: m.editor_field_error },
  count: { label: m.editor_field_count },
  bad: { label: m.editor_field_bad },
  after: { label: m.editor_field_after },
};

export const SETTING_WORDS: Record<string, Msg> = {
  groupBMeanS: m.editor_set_group_b_mean_s,
  ownServers: m.editor_set_own_servers,
  burstPerHour: m.editor_set_burst_per_hour,
  shedRetry: m.editor_set_shed_retry,
  backoffRetry: m.editor_set_backoff_retry,
  lowPriority: m.editor_set_low_priority,
  standInFee: m.editor_set_stand_in_fee,
  retryP: m.editor_set_retry_p,
  retryUnavailable: m.editor_set_retry_unavailable,
  exposureCap: m.editor_set_exposure_cap,
  saleShopperShift: m.editor_set_sale_shopper_shift,
  saleBasket: m.editor_set_sale_basket,
  fraudLiability: m.editor_set_fraud_liability,
  clock: m.editor_set_clock,
  bootMinutes: m.editor_set_boot_minutes,
  budget: m.editor_set_budget,
};

export const AGGREGATE_WORDS: Record<string, Msg> = {
  mean: m.editor_agg_mean,
  final: m.editor_agg_final,
  worst: m.editor_agg_worst,
};

export const LANGUAGE_WORDS: Record<string, Msg> = {
  en: m.editor_lang_en,
  id: m.editor_lang_id,
  hu: m.editor_lang_hu,
  it: m.editor_lang_it,
  nl: m.editor_lang_nl,
  ne: m.editor_lang_ne,
};
