// The ledger's money as people read it, in the simulator's currency: "10,809 u", "4.20 $"; and a
// team's saving against doing nothing at the same minute ("saved 9,560 u", "1,200 u more lost").
import type { LedgerFigures } from '$shared/protocol/types.ts';
import { deadZoneMoney } from '$shared/sim/score.ts';
import type { DisplayDef } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmt } from '$lib/format.ts';
import type { Sim } from './types.ts';

/** The ledger total's display: the currency and its digits. */
export function moneyDisplay(sim: Sim): DisplayDef {
  return (
    sim.model.indicators.find((i) => i.key === sim.model.ledger.total)?.display ?? {
      scale: 1,
      digits: 0,
      unit: sim.model.ledger.currency,
    }
  );
}

export const fmtMoney = (sim: Sim, value: number): string => fmt(moneyDisplay(sim), value);

/** What the team saved against doing nothing, or how much more it lost. */
export function fmtSaved(sim: Sim, l: LedgerFigures): string {
  const saved = l.baseline - l.total;
  return saved >= 0
    ? m.ledger_saved_short({ saved: fmtMoney(sim, saved) })
    : m.ledger_lost_more_short({ more: fmtMoney(sim, -saved) });
}

/**
 * Why a score of 0 sits beside money saved or lost: the difference is within the dead zone at that
 * minute (`deadZoneMoney`: what a saving needs to count, or a loss to count against). Null when the score
 * is not 0, or the money reads 0 too.
 */
export function scoreZeroWhy(sim: Sim, score: number | null, l: LedgerFigures | null): string | null {
  if (score !== 0 || !l) return null;
  const saved = l.baseline - l.total;
  if (fmtMoney(sim, Math.abs(saved)) === fmtMoney(sim, 0)) return null;
  const zone = deadZoneMoney(l.baseline, l.calm);
  return saved > 0
    ? m.score_dead_zone_saved({ saved: fmtMoney(sim, saved), min: fmtMoney(sim, zone.save) })
    : m.score_dead_zone_lost({ more: fmtMoney(sim, -saved), min: fmtMoney(sim, zone.lose) });
}
