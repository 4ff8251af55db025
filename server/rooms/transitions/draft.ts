// A transition's working copy: the next state built up step by step, with the writes and messages
// that go with each step. It copies what it changes and never touches the state it started from.
import type { PlayerPatch } from '../../db/records.ts';
import type { Write } from '../../db/writes.ts';
import type { Message, Outcome } from '../commands.ts';
import type { SeatPilot } from '../../../shared/protocol/types.ts';
import type { PlayerState, RoomState, RoundRun } from '../state.ts';

export interface PlayerUpdate {
  id: number;
  set: PlayerPatch;
}

export class Draft {
  state: RoomState;
  readonly writes: Write[] = [];
  readonly messages: Message[] = [];
  /** The draft's own copy of the players, made on the first change. */
  private players: Map<number, PlayerState> | null = null;
  /** One update write per player, merged. */
  private playerWrites = new Map<number, PlayerPatch>();

  constructor(base: RoomState) {
    this.state = base;
  }

  write(...w: Write[]): void {
    this.writes.push(...w);
  }
  send(...m: Message[]): void {
    this.messages.push(...m);
  }

  patch(p: Partial<Omit<RoomState, 'id' | 'code' | 'teacherId' | 'players' | 'round'>>): void {
    this.state = { ...this.state, ...p };
  }
  patchRound(p: Partial<RoundRun>): void {
    this.state = { ...this.state, round: { ...this.state.round, ...p } };
  }

  private ownPlayers(): Map<number, PlayerState> {
    if (!this.players) this.players = new Map(this.state.players);
    return this.players;
  }

  /** A new player, stored by `insert`. */
  addPlayer(p: PlayerState, insert: Write): void {
    const players = this.ownPlayers();
    players.set(p.id, p);
    this.state = { ...this.state, players };
    this.write(insert);
  }

  /** Changes players and stores the changes (one update per player). */
  updatePlayers(updates: readonly PlayerUpdate[]): void {
    if (!updates.length) return;
    const players = this.ownPlayers();
    for (const u of updates) {
      const p = players.get(u.id);
      if (!p) throw new Error(`no player ${u.id} in room ${this.state.code}`);
      players.set(u.id, { ...p, ...u.set });
      const pending = this.playerWrites.get(u.id);
      if (pending) Object.assign(pending, u.set);
      else {
        const set = { ...u.set };
        this.playerWrites.set(u.id, set);
        this.write({ op: 'updatePlayer', id: u.id, set });
      }
    }
    this.state = { ...this.state, players };
  }

  /** A seat's pilot: not a column (the seat turn that goes with it is the record). */
  setPilot(id: number, pilot: SeatPilot | null): void {
    const players = this.ownPlayers();
    const p = players.get(id);
    if (!p) throw new Error(`no player ${id} in room ${this.state.code}`);
    players.set(id, { ...p, pilot });
    this.state = { ...this.state, players };
  }

  /** A bot's skill (not a column: its seat turns say it). */
  setBot(id: number, bot: PlayerState['bot']): void {
    const players = this.ownPlayers();
    const p = players.get(id);
    if (!p) throw new Error(`no player ${id} in room ${this.state.code}`);
    players.set(id, { ...p, bot });
    this.state = { ...this.state, players };
  }

  done<R>(reply: R): Outcome<R> {
    return { next: this.state, writes: this.writes, messages: this.messages, reply };
  }
}
