// How much JavaScript a route of the web app makes the browser download: every JS file the page
// loads for it (SvelteKit's entry and app, the route's layout and page nodes, and everything they
// import statically), each gzipped at level 9, read from the adapter-static build in build/.
// Modules the route imports on demand come in two sets of alternatives, and one of each is loaded:
// the reader's language (the message tables of web/lib/i18n/language.ts, one per locale) and the
// room's simulator. The heaviest of each set, with what it imports, is added to the total — the
// desk as the heaviest language (Nepali) downloads it. Each language comes in two packs
// (web/lib/i18n/packs.ts): the desk's, which every page loads, and the rest, which the student's
// pages (/play, /join) never load; for the other routes the heaviest of those is counted too.
//
//   npx tsx test/bench/bundle.ts [route] [--budget KB]     (default: /play/[code], budget 100 KB)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DESK_ROUTES } from '../../web/lib/i18n/packs.ts';

export interface BundleFile {
  file: string;
  bytes: number;
  gzip: number;
}
export interface OnDemand {
  /** The dynamically imported module. */
  entry: string;
  /** Which set of alternatives it belongs to ('language-more': the other pages' words). */
  kind: 'language' | 'language-more' | 'module';
  /** It and what it imports that the route has not loaded already. */
  files: BundleFile[];
  gzip: number;
}
export interface BundleReport {
  route: string;
  /** Loaded up front. */
  files: BundleFile[];
  staticGzip: number;
  /** Loaded on demand, one of each kind: each with its own imports, heaviest first. */
  onDemand: OnDemand[];
  /** Up front plus the heaviest on-demand module of each kind. */
  totalBytes: number;
  totalGzip: number;
}

/** A language's message table: `{app_name:"Opsroom",…,skip_to_content:"…"` (a key every locale has). */
const LANGUAGE_TABLE = /\bskip_to_content["']?:\s*[`"']/;
/** The other pages' table of a language (`model_title` is one of its keys). */
const MORE_TABLE = /\bmodel_title["']?:\s*[`"']/;

const STATIC_IMPORT = /(?:\bfrom\s*|\bimport\s*)["']([^"']+\.js)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*[`"']([^`"']+\.js)[`"']\s*\)/g;

/** The dictionary of routes in SvelteKit's app.js: route id → [leaf, layouts?, errors?]. */
function parseDictionary(appJs: string): Record<string, unknown[]> {
  const m = /\{"\/[^"]*":\s*\[[\s\S]*?\]\s*\}/.exec(appJs);
  if (!m) throw new Error('route dictionary not found in app.js');
  // Minified arrays may have holes ([5,,[1]]): make them JSON.
  let text = m[0];
  for (let prev = ''; prev !== text; ) {
    prev = text;
    text = text.replace(/\[,/g, '[null,').replace(/,,/g, ',null,').replace(/,\]/g, ',null]');
  }
  return JSON.parse(text);
}

/** Node files by index: SvelteKit names them `<index>.<hash>.js`. */
function nodeFiles(buildDir: string): Map<number, string> {
  const dir = join(buildDir, '_app/immutable/nodes');
  const out = new Map<number, string>();
  for (const f of readdirSync(dir)) {
    const m = /^(\d+)\.[^.]+\.js$/.exec(f);
    if (m) out.set(Number(m[1]), join(dir, f));
  }
  return out;
}

export function measureRoute(route = '/play/[code]', buildDir = 'build'): BundleReport {
  const root = resolve(buildDir);
  const indexHtml = join(root, 'index.html');
  if (!existsSync(indexHtml)) throw new Error(`${indexHtml} is missing: run \`npm run build\` first`);
  const html = readFileSync(indexHtml, 'utf8');
  const entries = [...html.matchAll(DYNAMIC_IMPORT)].map((m) => join(root, m[1]));
  const app = entries.find((f) => /\/entry\/app\.[^/]+\.js$/.test(f));
  if (!app) throw new Error('entry app.js not found in index.html');

  const dictionary = parseDictionary(readFileSync(app, 'utf8'));
  const entry = dictionary[route];
  if (!entry) throw new Error(`route ${route} is not in the build; routes: ${Object.keys(dictionary).join(', ')}`);
  const [leaf, layouts] = entry as [number, (number | null)[] | null];
  const nodes = nodeFiles(root);
  const wanted = [0, ...(layouts ?? []).filter((n): n is number => typeof n === 'number'), leaf < 0 ? ~leaf : leaf];
  const roots = [...entries, ...wanted.map((n) => nodes.get(n) ?? fail(`node ${n} not found`))];

  const seen = closure(root, roots, new Set(), app);
  const files = sizes(root, seen.files);
  const onDemand = [...seen.lazy]
    .filter((f) => !seen.files.has(f))
    .map((entry) => {
      const sub = sizes(root, closure(root, [entry], seen.files, app).files);
      const code = readFileSync(entry, 'utf8');
      const kind: OnDemand['kind'] = LANGUAGE_TABLE.test(code)
        ? 'language'
        : MORE_TABLE.test(code)
          ? 'language-more'
          : 'module';
      return { entry: relative(root, entry), kind, files: sub, gzip: sub.reduce((s, f) => s + f.gzip, 0) };
    })
    .sort((a, b) => b.gzip - a.gzip);
  const kinds = DESK_ROUTES.includes(route)
    ? (['language', 'module'] as const)
    : (['language', 'language-more', 'module'] as const);
  const heaviest = kinds.flatMap((kind) => onDemand.filter((d) => d.kind === kind).slice(0, 1));
  const staticGzip = files.reduce((s, f) => s + f.gzip, 0);
  return {
    route,
    files,
    staticGzip,
    onDemand,
    totalBytes:
      files.reduce((s, f) => s + f.bytes, 0) +
      heaviest.reduce((s, d) => s + d.files.reduce((t, f) => t + f.bytes, 0), 0),
    totalGzip: staticGzip + heaviest.reduce((s, d) => s + d.gzip, 0),
  };
}

/** Files reachable through static imports from `roots` (minus `known`), and the dynamic imports met. */
function closure(
  root: string,
  roots: string[],
  known: Set<string>,
  app: string,
): { files: Set<string>; lazy: Set<string> } {
  const files = new Set<string>();
  const lazy = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file) || known.has(file)) continue;
    files.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(STATIC_IMPORT)) queue.push(resolveImport(root, file, m[1]));
    // app.js imports every route's node lazily; only this route's nodes count (given as roots).
    if (file !== app) for (const m of code.matchAll(DYNAMIC_IMPORT)) lazy.add(resolveImport(root, file, m[1]));
  }
  return { files, lazy };
}

function sizes(root: string, files: Iterable<string>): BundleFile[] {
  return [...files]
    .map((f) => {
      const buf = readFileSync(f);
      return { file: posix.normalize(relative(root, f)), bytes: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
    })
    .sort((a, b) => b.gzip - a.gzip);
}

function resolveImport(root: string, from: string, spec: string): string {
  return spec.startsWith('/') ? join(root, spec) : resolve(dirname(from), spec);
}
function fail(msg: string): never {
  throw new Error(msg);
}

export function formatReport(r: BundleReport, budgetKb?: number): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const line = (f: BundleFile) => `  ${kb(f.gzip).padStart(9)}  ${kb(f.bytes).padStart(9)} raw  ${f.file}`;
  const lines = [`JavaScript of ${r.route}: ${kb(r.totalGzip)} gzip (level 9), ${kb(r.totalBytes)} raw`];
  lines.push(`up front: ${r.files.length} files, ${kb(r.staticGzip)} gzip`, ...r.files.map(line));
  const desk = DESK_ROUTES.includes(r.route);
  for (const kind of ['language', 'language-more', 'module'] as const) {
    for (const [i, d] of r.onDemand.filter((x) => x.kind === kind).entries()) {
      const counted = i === 0 && !(desk && kind === 'language-more');
      const note = counted
        ? ' (heaviest, counted)'
        : desk && kind === 'language-more'
          ? ' (not loaded by this route)'
          : ' (an alternative, not counted)';
      lines.push(`on demand, ${kind}${note}: ${d.entry}, ${kb(d.gzip)} gzip`, ...d.files.map(line));
    }
  }
  if (budgetKb !== undefined)
    lines.push(`budget ${budgetKb} KB gzip: ${r.totalGzip <= budgetKb * 1024 ? 'within' : 'OVER'}`);
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--budget');
  const budget = at >= 0 ? Number(args[at + 1]) : 100;
  const route = args.find((a, i) => !a.startsWith('--') && (at < 0 || i !== at + 1)) ?? '/play/[code]';
  const report = measureRoute(route);
  console.log(formatReport(report, budget));
  if (report.totalGzip > budget * 1024) process.exitCode = 1;
}
