// The survivors census (survivors.ts): V8's scaled samples turned back into objects, and a real count in process.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { census, survivorsOf } from './survivors.ts';

/** A sample as V8's sampling profiler reports it: an object of `size` bytes times its rounded count. */
const count = (size: number) => Math.floor(1 / (1 - Math.exp(-size / 4096)) + 0.5);
const scaled = (size: number) => size * count(size);
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });

describe('the survivors census', () => {
  it('counts each sample as the objects it stands for, by allocating function, most objects first', () => {
    const profile = {
      head: {
        id: 1,
        callFrame: frame('(root)', ''),
        children: [
          { id: 2, callFrame: frame('big', 'file:///x/a/big.ts'), children: [] },
          { id: 3, callFrame: frame('', 'file:///x/b/small.ts'), children: [] },
        ],
      },
      samples: [
        { size: scaled(8192), nodeId: 2 },
        { size: scaled(16), nodeId: 3 },
        { size: scaled(16), nodeId: 3 },
        { size: 1, nodeId: 99 }, // a node the tree does not have: left out
      ],
    };
    const c = census(profile);
    const small = 2 * count(16);
    const big = count(8192);
    expect(c.objects).toBeCloseTo(small + big, 3);
    expect(c.sites.map((s) => s.site)).toEqual(['(anonymous) b/small.ts', 'big a/big.ts']);
    expect(c.sites[0].objects).toBeCloseTo(small, 3);
    expect(c.sites[1].bytes).toBeCloseTo(scaled(8192), 6);
  });

  it('in a process with --expose-gc: what is kept alive is counted, what was let go is not', () => {
    // 20,000 objects kept, 20,000 let go; constant sampling intervals (V8's flag for tests) make the count repeatable.
    const code = `
      const { survivorsOf } = await import(${JSON.stringify(new URL('./survivors.ts', import.meta.url).href)});
      const kept = [];
      function keep() { for (let i = 0; i < 20000; i++) kept.push({ a: i, b: i + 1 }); }
      function drop() { let n = 0; for (let i = 0; i < 20000; i++) n += [i, i + 1].length; return n; }
      const c = await survivorsOf(async () => { keep(); drop(); });
      const at = (name) => c.sites.find((s) => s.site.startsWith(name + ' '))?.objects ?? 0;
      console.log(JSON.stringify({ keep: at('keep'), drop: at('drop'), kept: kept.length }));`;
    const out = execFileSync(
      process.execPath,
      [
        '--expose-gc',
        '--sampling-heap-profiler-suppress-randomness',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        code,
      ],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(r.kept).toBe(20_000);
    expect(r.keep).toBeGreaterThan(17_000);
    expect(r.keep).toBeLessThan(23_000);
    expect(r.drop).toBeLessThan(1_000);
  });

  it('without --expose-gc it refuses rather than count garbage', async () => {
    if ((globalThis as { gc?: unknown }).gc) throw new Error('this test runs without --expose-gc');
    await expect(survivorsOf(async () => {})).rejects.toThrow('--expose-gc');
  });
});
