// Every command's transition, in one place: the compiler refuses a command without one.
import type { CommandOf, Commands, CommandType, Outcome, Transition, TransitionCtx } from '../commands.ts';
import type { RoomState } from '../state.ts';
import { clock, recover } from './clock.ts';
import { configure, tempo } from './config.ts';
import { control } from './control.ts';
import { lock, message, share } from './access.ts';
import { assign } from './roles.ts';
import { join, move, remove, rename } from './roster.ts';
import { tick } from './tick.ts';
import { bots, pilot, take } from './pilot.ts';

const transitions: { [K in CommandType]: Transition<K> } = {
  join,
  control,
  configure,
  tempo,
  clock,
  move,
  rename,
  remove,
  tick,
  recover,
  assign,
  lock,
  share,
  message,
  pilot,
  take,
  bots,
};

/** The outcome of one command: pure, so the same state, command and ctx give the same outcome. */
export function transition<K extends CommandType>(
  state: RoomState,
  cmd: CommandOf<K>,
  ctx: TransitionCtx,
): Outcome<Commands[K]['reply']> {
  const fn: Transition<K> = transitions[cmd.type];
  return fn(state, cmd, ctx);
}
