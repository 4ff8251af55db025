// What the attack probes (security.ts, reliability.ts) watch while they attack: a class of four teams playing in its
// own room at one simulated minute per second, and how late its minutes come, as a student's page sees them.
import { io as ioClient, type Socket } from 'socket.io-client';

/** Emits an event and resolves with its acknowledgement. */
export const ask = (s: Socket, event: string, payload: unknown): Promise<any> =>
  new Promise((r) => s.emit(event, payload, r));

export function connect(url: string): Promise<Socket> {
  const s = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

/** A class in its own room: the intervals between its minutes, to see how late they come. */
export async function startClass(url: string) {
  const res = await fetch(`${url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ teamCount: 4, minutes: 240, tempo: 1 }),
  });
  const { code, teacherKey } = await res.json();
  const teacher = await connect(url);
  await ask(teacher, 'teacher:join', { code, key: teacherKey });
  const student = await connect(url);
  await ask(student, 'student:join', { code, name: 'Class' });
  const arrivals: number[] = [];
  const delays: number[] = [];
  student.on('minute', (m: { sentAt: number }) => {
    arrivals.push(Date.now());
    delays.push(Date.now() - m.sentAt);
  });
  await ask(teacher, 'teacher:clock', { action: 'start' });
  return {
    /** Worst lateness of a minute (interval beyond the tempo, plus delivery) since `from` (ms). */
    worstSince(from: number): number {
      let worst = 0;
      for (let i = 1; i < arrivals.length; i++)
        if (arrivals[i] >= from) worst = Math.max(worst, arrivals[i] - arrivals[i - 1] - 1000 + delays[i]);
      return worst;
    },
    count: () => arrivals.length,
    close: () => {
      teacher.disconnect();
      student.disconnect();
    },
  };
}
