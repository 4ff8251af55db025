// Every built-in scenario's id, offered or retired: a teacher's own scenario may not take one.
import { getMeta } from '$shared/sim/meta.ts';
import { simulatorIds } from '$shared/sim/ids.ts';

export const builtInIds = (): string[] => simulatorIds.flatMap((id) => getMeta(id).scenarios.map((s) => s.id));
