// One socket.io connection per page, typed with the protocol's event maps. socket.io reconnects by
// itself; the server forgets who a socket was, so every (re)connect calls `onConnect` to join again.
import { io, type Socket } from 'socket.io-client';
import type { ClientToServer, ServerToClient } from '$shared/protocol/events.ts';
import type { AckResult } from '$shared/protocol/types.ts';

export type ClassroomSocket = Socket<ServerToClient, ClientToServer>;
export type ConnState = 'connecting' | 'connected' | 'reconnecting' | 'offline';

type Payload<E extends keyof ClientToServer> = Parameters<ClientToServer[E]>[0];
/** What the server acknowledges for event E. */
export type AckOf<E extends keyof ClientToServer> = Parameters<Parameters<ClientToServer[E]>[1]>[0];

/** Client-side error code, next to the server's (translated the same way). */
export const TIMEOUT = 'TIMEOUT';

/** Failures worth another try: no answer in time, a rate limit, storage or servers out of reach for a moment. */
export function isTransient(code: string): boolean {
  return code === TIMEOUT || code === 'RATE_LIMITED' || code === 'STORAGE_FAILED' || code === 'UNAVAILABLE';
}

export class Connection {
  state = $state<ConnState>('connecting');
  readonly socket: ClassroomSocket;
  /** close() was called: stay disconnected. */
  private stopped = false;
  /** The pending retry of a failed join. */
  private retry: ReturnType<typeof setTimeout> | null = null;

  constructor(onConnect: () => void) {
    this.socket = io({ path: '/socket.io', autoConnect: false, reconnectionDelayMax: 4000 });
    this.socket.on('connect', () => {
      this.state = 'connected';
      onConnect();
    });
    this.socket.on('disconnect', (reason) => {
      if (this.stopped) {
        this.state = 'offline';
        return;
      }
      this.state = 'reconnecting';
      // socket.io reconnects by itself except after a server-side disconnect (a server shutting
      // down, or a removed student — whose page stops the connection when the notice arrives).
      if (reason === 'io server disconnect') setTimeout(() => !this.stopped && this.socket.connect(), 1000);
    });
    this.socket.on('connect_error', () => {
      if (!this.stopped) this.state = 'reconnecting';
    });
  }

  open(): void {
    this.stopped = false;
    this.socket.connect();
  }
  close(): void {
    this.stopped = true;
    this.cancelRetry();
    this.state = 'offline';
    this.socket.disconnect();
  }

  private cancelRetry(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  /**
   * What follows a failed join, for every page alike: a code `fatal` names closes the connection and
   * is returned (the page shows it); any other is tried again shortly — `again` is called if still
   * connected. One retry waits at most; close() cancels it.
   */
  afterFailedJoin(code: string, fatal: (code: string) => boolean, again: () => void): string | null {
    if (fatal(code)) {
      this.close();
      return code;
    }
    this.cancelRetry();
    this.retry = setTimeout(
      () => {
        this.retry = null;
        if (!this.stopped && this.socket.connected) again();
      },
      code === TIMEOUT ? 500 : 2500,
    );
    return null;
  }

  /** Emits an event and resolves with its acknowledgement (or a TIMEOUT error): never rejects. */
  request<E extends keyof ClientToServer>(event: E, payload: Payload<E>, timeoutMs = 10_000): Promise<AckOf<E>> {
    return new Promise((resolve) => {
      const timed = this.socket.timeout(timeoutMs) as unknown as {
        emit(e: E, p: Payload<E>, cb: (err: Error | null, res: AckResult) => void): void;
      };
      timed.emit(event, payload, (err, res) => {
        resolve(
          (err ? { ok: false, error: { code: TIMEOUT, message: 'no answer from the server' } } : res) as AckOf<E>,
        );
      });
    });
  }
}
