// The socket.io server as Opsroom types it, and the socket.io rooms ("channels") of a classroom room: everyone, each
// team, the teacher, the observers, each player, each team's split views. Every channel of a room starts with
// `r:CODE`.
import type { Server, Socket } from 'socket.io';
import type { ClientToServer, ServerToClient } from '../../shared/protocol/events.ts';
import type { Channel } from '../rooms/output.ts';

export type Role = 'student' | 'teacher' | 'observer';

/** Who a socket is, once it has joined a room. */
export interface SocketData {
  ip: string;
  role: 'none' | Role;
  code?: string;
  playerId?: number;
}
export type IoServer = Server<ClientToServer, ServerToClient, Record<string, never>, SocketData>;
export type IoSocket = Socket<ClientToServer, ServerToClient, Record<string, never>, SocketData>;

export const ch = {
  all: (code: string) => `r:${code}`,
  team: (code: string, teamId: number) => `r:${code}:t:${teamId}`,
  teacher: (code: string) => `r:${code}:teacher`,
  observers: (code: string) => `r:${code}:obs`,
  player: (code: string, playerId: number) => `r:${code}:p:${playerId}`,
  /** Split view: the students of a team holding one set of roles (not under the team's `r:CODE:t:` prefix). */
  view: (code: string, teamId: number, view: string) => `r:${code}:v:${teamId}:${view}`,
};

export function channelName(code: string, to: Channel): string {
  switch (to.kind) {
    case 'all':
    case 'public':
      return ch.all(code);
    case 'team':
      return ch.team(code, to.teamId);
    case 'teacher':
      return ch.teacher(code);
    case 'observers':
      return ch.observers(code);
    case 'player':
      return ch.player(code, to.playerId);
    case 'view':
      return ch.view(code, to.teamId, to.view);
  }
}

/** The channels a seat's socket is in besides the room's `all` channel. */
export function seatChannels(
  code: string,
  seat: { role: Role; playerId?: number; teamId?: number | null; view?: string | null },
): string[] {
  switch (seat.role) {
    case 'student': {
      const out = seat.playerId === undefined ? [] : [ch.player(code, seat.playerId)];
      if (seat.teamId != null) out.push(ch.team(code, seat.teamId));
      if (seat.view) out.push(seat.view);
      return out;
    }
    case 'teacher':
      return [ch.teacher(code)];
    case 'observer':
      return [ch.observers(code)];
  }
}
