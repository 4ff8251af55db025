// Bench 3e: what each team-minute leaves alive in the rooms' memory. At 10,000 students what outlives a minute
// is what the collector pays for: this counts it. Rooms of 10 teams
// are played in process (manual clock, a SQLite file) to minute 10 and to minute 30; a heap snapshot after each
// (a full collection first) gives the live objects by kind, and the difference over the team-minutes between
// them is what each minute adds for good (the team's history).
import { getHeapSnapshot } from 'node:v8';
import { pausedRooms, withBenchApp } from './rooms.ts';
import { fmt } from './stats.ts';

interface HeapCount {
  objects: number;
  bytes: number;
  /** kind (V8's node type, and its constructor for objects) → [objects, bytes] */
  kinds: Map<string, [number, number]>;
}

async function countHeap(): Promise<HeapCount> {
  const chunks: string[] = [];
  for await (const c of getHeapSnapshot()) chunks.push(String(c));
  const h = JSON.parse(chunks.join('')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const { node_fields: fields, node_types: types } = h.snapshot.meta;
  const width = fields.length;
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out: HeapCount = { objects: 0, bytes: 0, kinds: new Map() };
  for (let i = 0; i < h.nodes.length; i += width) {
    const t = types[0][h.nodes[i + type]];
    // Strings are named by their text and code by its function: one kind each.
    const kind = t === 'object' || t === 'array' || t === 'number' ? `${t} ${h.strings[h.nodes[i + name]]}` : t;
    const k = out.kinds.get(kind) ?? [0, 0];
    k[0]++;
    k[1] += h.nodes[i + size];
    out.kinds.set(kind, k);
    out.objects++;
    out.bytes += h.nodes[i + size];
  }
  return out;
}

export interface RetainedResult {
  teams: number;
  minutes: number;
  objectsPerTeamMinute: number;
  bytesPerTeamMinute: number;
  /** The largest kinds: [kind, objects, bytes] per team-minute. */
  kinds: [string, number, number][];
}

/** `rooms` rooms of 10 teams, half of each model, played to minute `from` and then to minute `to`. */
export async function benchRetained(rooms = 24, from = 10, to = 30): Promise<RetainedResult> {
  return withBenchApp('retained', async (app) => {
    const played = await pausedRooms(app, rooms, { teams: 10, minutes: 60, students: 0 });
    /** `n` more minutes in every room. */
    const play = async (n: number) => {
      for (let m = 0; m < n; m++) await Promise.all(played.map((r) => r.dispatch({ type: 'clock', action: 'step' })));
    };
    await play(from);
    const before = await countHeap();
    await play(to - from);
    const after = await countHeap();
    const teamMinutes = rooms * 10 * (to - from);
    const kinds: [string, number, number][] = [...after.kinds].map(([k, [n, b]]) => {
      const [n0, b0] = before.kinds.get(k) ?? [0, 0];
      return [k, (n - n0) / teamMinutes, (b - b0) / teamMinutes];
    });
    kinds.sort((a, b) => b[1] - a[1]);
    return {
      teams: rooms * 10,
      minutes: to - from,
      objectsPerTeamMinute: (after.objects - before.objects) / teamMinutes,
      bytesPerTeamMinute: (after.bytes - before.bytes) / teamMinutes,
      kinds: kinds.slice(0, 6),
    };
  });
}

export function reportRetained(r: RetainedResult): string {
  const lines = [
    `${r.teams} teams, minutes ${r.minutes} apart: each team-minute leaves ${fmt(r.objectsPerTeamMinute)} objects, ${fmt(r.bytesPerTeamMinute, 0)} B alive`,
  ];
  for (const [kind, n, b] of r.kinds)
    lines.push(`  ${fmt(n, 2).padStart(6)} objects ${fmt(b, 0).padStart(6)} B  ${kind}`);
  return lines.join('\n');
}
