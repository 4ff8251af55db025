// The teacher's page: the room, every team's latest minute and headline trend, the scores, and one
// team's full desk on demand. Rebuilt from the join's answer after every (re)connect.
import type {
  ChangeRecord,
  ClockAction,
  PilotSkill,
  RoleChange,
  RoomMinute,
  RoomView,
  RoundConfig,
  RoundScores,
  SeatTurn,
  TeacherMessage,
  Tempo,
} from '$shared/protocol/types.ts';
import { Connection, isTransient, type AckOf } from '$lib/net/connection.svelte.ts';
import type { ClientToServer } from '$shared/protocol/events.ts';
import type { ControlValue } from '$shared/sim/types.ts';
import { DeskState } from './desk.svelte.ts';
import { afterMinute, afterNotice } from './notice.ts';
import { withPresence } from './presence.ts';
import { extendTrends, type Trends } from './trends.ts';

export class TeacherSession {
  readonly conn: Connection;
  /** The team whose full desk is open. */
  readonly desk = new DeskState();
  room = $state.raw<RoomView | null>(null);
  latest = $state.raw<RoomMinute | null>(null);
  trends = $state.raw<Trends>({});
  scores = $state.raw<RoundScores | null>(null);
  /** Every team's role changes this round, oldest first. */
  roleChanges = $state.raw<RoleChange[]>([]);
  /** The messages sent this round. */
  messages = $state.raw<TeacherMessage[]>([]);
  /** Every team's seat turns this round (to the autopilot, to the teacher, back), oldest first. */
  seatTurns = $state.raw<SeatTurn[]>([]);
  joined = $state(false);
  failure = $state<string | null>(null);
  /** The last unsolicited notice (a failed minute, the server stopping), as a code; cleared when it no longer holds. */
  notice = $state<string | null>(null);
  openTeamId = $state<number | null>(null);
  /** The seat the teacher chose to play from the dashboard (its team's desk opens with its controls). */
  playingId = $state<number | null>(null);
  /** The seat the teacher plays, while the room says the teacher plays it. */
  playing = $derived(
    this.room?.players.find((p) => p.id === this.playingId && p.pilot?.kind === 'teacher' && p.teamId !== null) ?? null,
  );
  private headline: () => readonly string[];

  constructor(
    readonly code: string,
    private readonly key: string,
    headline: (simulator: string) => readonly string[],
  ) {
    this.headline = () => (this.room ? headline(this.room.round.simulator) : []);
    this.conn = new Connection(() => void this.join());
    const s = this.conn.socket;
    s.on('disconnect', () => (this.joined = false));
    s.on('room', (room) => {
      if (this.room && room.round.id !== this.room.round.id) {
        this.latest = null;
        this.trends = {};
        this.scores = null;
        this.roleChanges = [];
        this.messages = [];
        this.seatTurns = [];
        this.desk.reset(room.round.id);
      }
      this.room = room;
    });
    s.on('roles', (r) => {
      this.roleChanges = [...this.roleChanges, ...r.changes];
      this.desk.addRoleChanges(r);
    });
    s.on('message', (msg) => {
      if (!this.messages.some((x) => x.id === msg.id)) this.messages = [...this.messages, msg];
    });
    s.on('presence', (p) => {
      if (this.room) this.room = withPresence(this.room, p);
    });
    s.on('room:minute', (rm) => {
      // A minute that came through answers a failed one, and a pause.
      this.notice = afterMinute(this.notice);
      this.latest = rm;
      this.trends = extendTrends(this.trends, rm, this.headline());
      const mine = rm.teams.find((t) => t.teamId === this.openTeamId);
      if (mine && !this.desk.applyMinute({ ...mine, roundId: rm.roundId })) void this.loadTeam(mine.teamId);
    });
    s.on('pending', (c) => this.desk.addChange(c));
    s.on('seat', (t) => {
      this.seatTurns = [...this.seatTurns, t];
      this.desk.addSeatTurn(t);
    });
    s.on('scores', (sc) => (this.scores = sc));
    s.on('notice', (n) => (this.notice = afterNotice(n.code)));
  }

  start(): void {
    this.conn.open();
  }

  async join(): Promise<void> {
    this.joined = false;
    const res = await this.conn.request('teacher:join', { code: this.code, key: this.key });
    if (!res.ok) {
      this.failure = this.conn.afterFailedJoin(
        res.error.code,
        (c) => !isTransient(c),
        () => void this.join(),
      );
      return;
    }
    this.room = res.room;
    this.latest = res.latest;
    this.trends = res.trends;
    this.scores = res.scores;
    this.roleChanges = res.roleChanges;
    this.messages = res.messages;
    this.seatTurns = res.seatTurns;
    this.notice = null;
    this.joined = true;
    if (this.openTeamId !== null) await this.loadTeam(this.openTeamId);
  }

  private async loadTeam(teamId: number): Promise<string | null> {
    const res = await this.conn.request('teacher:team', { teamId });
    if (!res.ok) return res.error.code;
    if (this.openTeamId === teamId) this.desk.load(res.history);
    return null;
  }

  async openTeam(teamId: number): Promise<string | null> {
    this.openTeamId = teamId;
    this.desk.reset(this.room?.round.id ?? null, teamId);
    const err = await this.loadTeam(teamId);
    if (err) this.openTeamId = null;
    return err;
  }
  closeTeam(): void {
    this.openTeamId = null;
  }

  /** Runs a teacher action; the room view in the answer replaces ours. Resolves with an error code or null. */
  private async act<E extends keyof ClientToServer>(
    event: E,
    payload: Parameters<ClientToServer[E]>[0],
  ): Promise<string | null> {
    const res = (await this.conn.request(event, payload)) as AckOf<'teacher:clock'>;
    if (!res.ok) return res.error.code;
    this.room = res.room;
    return null;
  }
  configure = (patch: Partial<RoundConfig>) => this.act('teacher:configure', patch);
  clock = (action: ClockAction) => this.act('teacher:clock', { action });
  tempo = (tempo: Tempo) => this.act('teacher:tempo', { tempo });
  move = (playerId: number, teamId: number) => this.act('teacher:move', { playerId, teamId });
  rename = (teamId: number, name: string) => this.act('teacher:rename', { teamId, name });
  remove = (playerId: number) => this.act('teacher:remove', { playerId });
  assign = (playerId: number, role: string) => this.act('teacher:assign', { playerId, role });
  lock = (locked: boolean) => this.act('teacher:lock', { locked });
  share = (shared: boolean) => this.act('teacher:share', { shared });
  /** Passes a seat to the autopilot, to the teacher, or back to its student. */
  pilot = (playerId: number, pilot: 'autopilot' | 'teacher' | 'student', skill?: PilotSkill) =>
    this.act('teacher:pilot', { playerId, pilot, ...(skill ? { skill } : {}) });

  /** Fills a rehearsal's teams with bots, one skill per team. */
  bots = (teams: PilotSkill[], role?: string) => this.act('teacher:bots', { teams, ...(role ? { role } : {}) });

  /** Plays a seat from the dashboard: the seat becomes the teacher's and its team's desk opens with its controls. */
  async play(playerId: number): Promise<string | null> {
    const err = await this.pilot(playerId, 'teacher');
    if (err) return err;
    this.playingId = playerId;
    const teamId = this.room?.players.find((p) => p.id === playerId)?.teamId ?? null;
    return teamId !== null && this.openTeamId !== teamId ? this.openTeam(teamId) : null;
  }

  /** A change of a control of the seat the teacher plays; resolves with an error code or null. */
  async control(key: string, value: ControlValue): Promise<string | null> {
    const playerId = this.playing?.id;
    if (playerId === undefined) return 'BAD_STATE';
    const res = await this.conn.request('teacher:control', { playerId, key, value });
    if (!res.ok) return res.error.code;
    this.desk.addChange(res.change as ChangeRecord);
    return null;
  }
  /** A message to one team or to all (null); resolves with an error code or null. */
  async message(teamId: number | null, text: string): Promise<string | null> {
    const res = await this.conn.request('teacher:message', { teamId, text });
    return res.ok ? null : res.error.code;
  }

  dispose(): void {
    this.conn.close();
  }
}
