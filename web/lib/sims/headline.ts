// A simulator's headline indicators by its id (the teacher's trends keep these of every minute); none for an id
// that is no simulator.
import { isSimulatorId } from '$shared/sim/ids.ts';
import { getMeta } from '$shared/sim/meta.ts';

export const headlineOf = (simulator: string): readonly string[] =>
  isSimulatorId(simulator)
    ? getMeta(simulator)
        .indicators.filter((i) => i.headline)
        .map((i) => i.key)
    : [];
