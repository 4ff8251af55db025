// The server's import graph: no circles (type-only imports included, as the compiler sees them), and the bottom
// layer (server/lib/) imports nothing of the server's. Read with TypeScript's own parser of import declarations.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

type Graph = Map<string, string[]>;

/** Every .ts file under `dir`, with the files of the project it imports or re-exports (relative specifiers). */
function importGraph(dir: string): Graph {
  const graph: Graph = new Map();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) {
        const { importedFiles } = ts.preProcessFile(readFileSync(p, 'utf8'), true, true);
        graph.set(
          relative(root, p),
          importedFiles
            .map((f) => f.fileName)
            .filter((f) => f.startsWith('.'))
            .map((f) => relative(root, resolve(dirname(p), f))),
        );
      }
    }
  };
  walk(dir);
  return graph;
}

/** The circles of a graph: each strongly connected component of more than one file, or a file that imports itself. */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the circle finder finds a circle of types, and none in a line', () => {
  const line: Graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', []],
  ]);
  expect(circles(line)).toEqual([]);
  const ring: Graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['d']],
  ]);
  expect(circles(ring)).toEqual([['a', 'b', 'c'], ['d']]);
  // `import type` counts: the parser lists it like any import.
  const { importedFiles } = ts.preProcessFile(
    "import type { X } from './x.ts';\nexport { Y } from './y.ts';",
    true,
    true,
  );
  expect(importedFiles.map((f) => f.fileName)).toEqual(['./x.ts', './y.ts']);
});

test('server/ has no import circles', () => {
  const graph = importGraph(join(root, 'server'));
  expect(graph.size).toBeGreaterThan(50);
  expect(circles(graph)).toEqual([]);
});

test('server/lib/ is the bottom layer: it imports nothing else of the server', () => {
  const graph = importGraph(join(root, 'server'));
  const lib = [...graph].filter(([file]) => file.startsWith('server/lib/'));
  expect(lib.length).toBeGreaterThan(3);
  for (const [file, imports] of lib)
    expect(
      imports.filter((i) => !i.startsWith('server/lib/')),
      file,
    ).toEqual([]);
});
