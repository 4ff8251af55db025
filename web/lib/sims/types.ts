// What the web app needs to say about one simulator, as message functions (so the bundler keeps
// only the messages a route really uses, and svelte-check proves each key has a message).
import type { SimMeta, SimulatorId } from '$shared/sim/types.ts';

type Msg = () => string;
type MsgWith<P> = (inputs: P) => string;

export interface ControlText {
  label: Msg;
  help: Msg;
  /** Labels of an enum control's options. */
  options?: Record<string, Msg>;
}
export interface ScenarioText {
  name: Msg;
  brief: Msg;
  /** Goal id → its sentence, with the formatted target. */
  goals: Record<string, MsgWith<{ target: string }>>;
}
export interface SimText {
  name: Msg;
  story: Msg;
  learn: Msg[];
  notice: Msg;
  roles: Record<string, Msg>;
  controls: Record<string, ControlText>;
  indicators: Record<string, Msg>;
  scenarios: Record<string, ScenarioText>;
  /** Event kind → its feed line (events carry `count`, `group`…). */
  events: Record<string, MsgWith<Record<string, string>>>;
  /** Why the story has taken a control away (`Snapshot.unavailable`'s reasons). */
  unavailable: Record<string, Msg>;
  /** Why a control would do nothing now (`SimMeta.idle`'s ids), said beside it. */
  idle?: Record<string, Msg>;
  /** Why every headline figure reads critical during a collapse, however it reads on its own. */
  collapse: Msg;
}

/** A simulator as the web app uses it: the pure model (shared with the server) and its words. */
export interface Sim {
  id: SimulatorId;
  model: SimMeta;
  text: SimText;
}

/** A scenario's name, or its id when a colleague adds one before its words exist. */
export function scenarioName(s: Sim, scenario: string): string {
  return s.text.scenarios[scenario]?.name() ?? scenario;
}
