// A chapter's title in the reader's language: one message per model event kind (chapter_<kind>,
// test/web/replay.test.ts checks every event of both models has one), and "goal lost for good"
// with the goal's own sentence (chapter_lost_goal: a key with _goal_ in it is a goal sentence that
// takes a {target}, test/web/messages.test.ts).
import type { Chapter } from '$shared/replay/chapters.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtInt } from '$lib/format.ts';
import type { Shown } from '$lib/sims/shown.ts';

type Count = { count: string };
const titles: Record<string, (p: Count) => string> = {
  'sale-start': m.chapter_sale_start,
  'sale-end': m.chapter_sale_end,
  'fraud-wave-start': m.chapter_fraud_wave_start,
  'issuer-slow': m.chapter_issuer_slow,
  'servers-ready': m.chapter_servers_ready,
  'retry-storm': m.chapter_retry_storm,
  'retry-storm-over': m.chapter_retry_storm_over,
  'sale-announced': m.chapter_sale_announced,
  'drop-announced': m.chapter_drop_announced,
  'bots-start': m.chapter_bots_start,
  'flash-sale-start': m.chapter_flash_sale_start,
  'card-testing-start': m.chapter_card_testing_start,
  'card-testing-over': m.chapter_card_testing_over,
  deploy: m.chapter_deploy,
  page: m.chapter_page,
  'surge-start': m.chapter_surge_start,
  'surge-end': m.chapter_surge_end,
  'crawler-start': m.chapter_crawler_start,
  'crawler-end': m.chapter_crawler_end,
  'cache-flush': m.chapter_cache_flush,
  'db-failover': m.chapter_db_failover,
  'db-restored': m.chapter_db_restored,
  'instances-ready': m.chapter_instances_ready,
  'rollback-done': m.chapter_rollback_done,
  'warmup-done': m.chapter_warmup_done,
  'surge-announced': m.chapter_surge_announced,
  'deploy-done': m.chapter_deploy_done,
  'autoscaler-away': m.chapter_autoscaler_away,
  'autoscaler-back': m.chapter_autoscaler_back,
};

export function chapterTitle(scenario: Shown, c: Chapter): string {
  if (c.kind === 'goal-lost') {
    const goal = scenario.goals.find((g) => g.id === c.goal);
    return m.chapter_lost_goal({ goal: goal ? scenario.goalLine(goal) : (c.goal ?? '') });
  }
  const title = titles[c.kind];
  return title ? title({ count: c.count === undefined ? '' : fmtInt(c.count) }) : m.chapter_other({ kind: c.kind });
}
