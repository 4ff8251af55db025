// A built-in still defined in code, its shocks as the format writes them: the converter writes them into the
// built-in's file, and the teacher's copy of such a built-in starts from them (so its shocks can be moved).
// Not for the desk: it imports the models' recipes and setups.
import { RECIPES } from '../sim/payment-switch/recipes.ts';
import type { ScenarioDef, SimulatorId } from '../sim/types.ts';
import { NO_SHOCKS } from '../sim/web-service/shocks.ts';
import { SETUPS } from '../sim/web-service/setups.ts';

/** The scenario's shocks from the shock library, when its code draws them from there (a recipe or a plan). */
export function shocksInCode(model: SimulatorId, id: string): ScenarioDef['shocks'] {
  if (model === 'payment-switch') {
    const r = RECIPES[id];
    return r ? { setting: { ...r.terms }, episodes: structuredClone(r.episodes) as object[] } : undefined;
  }
  const setup = SETUPS[id];
  if (!setup?.plan) return undefined;
  const none = () => {
    throw new Error(`${id} draws shocks outside the library`);
  };
  if (setup.shocks({ int: none, real: none }) !== NO_SHOCKS) return undefined;
  const { clock, bootMinutes, budget } = setup;
  return { setting: { clock, bootMinutes, budget }, episodes: structuredClone(setup.plan) as object[] };
}
