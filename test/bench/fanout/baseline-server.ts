// The baseline: a bare socket.io server that broadcasts payloads of a given size to the same channels
// at the same rate (one per channel per second), with nothing else to do. Prints {"port":N}.
import { createServer } from 'node:http';
import { Server } from 'socket.io';
import { probeServer } from './probe.ts';

probeServer('baseline');

const rooms = Number(process.env.ROOMS);
const teams = Number(process.env.TEAMS);
const teamBytes = Number(process.env.TEAM_BYTES);
const teacherBytes = Number(process.env.TEACHER_BYTES);
const periodMs = Number(process.env.PERIOD_MS ?? 1000);

const http = createServer();
const io = new Server(http, { serveClient: false, maxHttpBufferSize: 8 * 1024 });
io.on('connection', (socket) => {
  socket.on('sub', (channel: string, ack: () => void) => {
    socket.join(channel);
    ack();
  });
});

const pad = (bytes: number, base: object) => {
  const skeleton = JSON.stringify({ ...base, pad: '' }).length;
  return 'x'.repeat(Math.max(0, bytes - skeleton));
};
let started = false;
io.on('connection', (socket) =>
  socket.on('go', () => {
    if (started) return;
    started = true;
    for (let r = 0; r < rooms; r++) {
      let minute = 0;
      // Rooms are staggered over the period, as independent room clocks are. Each tick is planned from the
      // previous plan, as a room's clock is, so a late tick is followed by an earlier one instead of drifting.
      let due = Date.now() + (r * periodMs) / rooms;
      const tick = () => {
        const sentAt = Date.now();
        for (let t = 0; t < teams; t++) {
          const base = { roundId: r + 1, teamId: t, minute, sentAt };
          io.to(`r${r}:t${t}`).emit('minute', { ...base, pad: pad(teamBytes, base) });
        }
        const tb = { roundId: r + 1, minute, sentAt };
        io.to(`r${r}:teacher`).emit('room:minute', { ...tb, pad: pad(teacherBytes, tb) });
        minute++;
        due += periodMs;
        setTimeout(tick, Math.max(0, due - Date.now()));
      };
      setTimeout(tick, Math.max(0, due - Date.now()));
    }
  }),
);

http.listen(0, '127.0.0.1', () => {
  const addr = http.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
