// What a minute leaves alive for the next scavenge, by the function that allocated it: V8's sampling heap profiler
// (a sample every 4 KB allocated) over one minute of every room, then a minor collection, and what is still sampled
// is what a scavenge would copy. Each sample stands for about 1 / (1 − e^(−size/4096)) objects of its size (V8's
// own scaling, sizeOf), so small objects are counted too. A scavenge's pause follows that count more than the bytes
//. Run in the measuring process, which needs --expose-gc.
import { Session } from 'node:inspector/promises';

const INTERVAL = 4096;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
}
interface Profile {
  head: ProfileNode;
  samples: { size: number; nodeId: number }[];
}

export interface Census {
  objects: number;
  bytes: number;
  /** By allocating function, most objects first. */
  sites: { site: string; objects: number; bytes: number }[];
}

/**
 * The size of the object behind a sample. V8 reports `size × count`, count = ⌊1 / (1 − e^(−size/interval)) + 0.5⌋ (its
 * ScaleSize, rounded): the one size, a multiple of 8, that gives back what was reported. Rounded, the count cannot be
 * solved for from the product alone.
 */
const countFor = (size: number) => Math.floor(1 / (1 - Math.exp(-size / INTERVAL)) + 0.5);

export function sizeOf(reported: number): number {
  if (countFor(reported) === 1) return reported;
  for (let size = 8; size <= 2 * INTERVAL; size += 8)
    if (reported % size === 0 && countFor(size) === reported / size) return size;
  return reported;
}

export function census(profile: Profile, top = 12): Census {
  // Each node's site, named once: a profile has far fewer nodes than samples.
  const siteOf = new Map<number, string>();
  const walk = (n: ProfileNode) => {
    siteOf.set(n.id, `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`);
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  const bySite = new Map<string, { objects: number; bytes: number }>();
  let objects = 0;
  let bytes = 0;
  for (const s of profile.samples) {
    const site = siteOf.get(s.nodeId);
    if (site === undefined) continue;
    const count = s.size / sizeOf(s.size);
    const at = bySite.get(site) ?? { objects: 0, bytes: 0 };
    at.objects += count;
    at.bytes += s.size;
    bySite.set(site, at);
    objects += count;
    bytes += s.size;
  }
  const sites = [...bySite]
    .map(([site, v]) => ({ site, ...v }))
    .sort((a, b) => b.objects - a.objects)
    .slice(0, top);
  return { objects, bytes, sites };
}

/** Samples what `work` allocates, collects the young generation, and counts what is still alive. */
export async function survivorsOf(work: () => Promise<void>): Promise<Census> {
  const gc = (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc;
  if (!gc) throw new Error('counting survivors needs --expose-gc');
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: INTERVAL });
    await work();
    gc({ type: 'minor' });
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: Profile };
    return census(profile);
  } finally {
    session.disconnect();
  }
}

export function reportSurvivors(c: Census, teamMinutes: number): string {
  const per = (x: number) => (x / teamMinutes).toFixed(1);
  return [
    `  alive after one minute of every room and a minor collection: ${Math.round(c.objects).toLocaleString('en')} objects, ${(c.bytes / 1e6).toFixed(1)} MB = ${per(c.objects)} objects, ${Math.round(c.bytes / teamMinutes)} B per team-minute; by allocating function:`,
    ...c.sites.map(
      (s) =>
        `    ${per(s.objects).padStart(6)} objects ${String(Math.round(s.bytes / teamMinutes)).padStart(6)} B  ${s.site}`,
    ),
  ].join('\n');
}
