// A Vite plugin for the browser build: each message module Paraglide compiles (all six languages in
// one function) becomes `message('key')` from language.ts, and each language becomes two modules
// (`virtual:opsroom-language/<locale>`: the desk's texts, and `…/<locale>/more`: the rest, see
// packs.ts) from web/messages/<locale>.json, which the root layout loads for the reader.
// Tree-shaking still keeps only the messages a route uses; the texts come in one language, and the
// student's desk never downloads the teacher's or the model pages' words. The server build and node
// tests keep Paraglide's functions as they are.
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { isMoreKey } from './packs.ts';

const PREFIX = 'virtual:opsroom-language/';
/** `export const app_name = …` or `export { err_bad_request10 as "err_BAD_REQUEST" }`. */
const EXPORTED = /export const (\w+) =|export \{ \w+ as "(\w+)" \}/;

export function oneLanguage(opts: {
  messages: string;
  compiled: string;
  runtime: string;
  locales: readonly string[];
  /** Source files of the routes that load the desk's pack only (their chunks may use no other message). */
  deskRoutes: readonly string[];
}): Plugin {
  const compiledDir = resolve(opts.compiled);
  const runtime = resolve(opts.runtime);
  const deskRoutes = opts.deskRoutes.map((f) => resolve(f));
  /** Compiled message module → its key (filled by transform). */
  const keyOf = new Map<string, string>();
  return {
    name: 'opsroom-one-language',
    enforce: 'post',
    resolveId(id) {
      return id.startsWith(PREFIX) ? `\0${id}` : undefined;
    },
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return undefined;
      const [locale, part] = id.slice(PREFIX.length + 1).split('/');
      if (!opts.locales.includes(locale) || (part !== undefined && part !== 'more'))
        throw new Error(`unknown language pack ${id.slice(1)}`);
      const file = resolve(opts.messages, `${locale}.json`);
      this.addWatchFile(file);
      const { $schema: _, ...texts } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      // language.ts fills `{name}` and nothing else: anything more (plural or select variants) must
      // fail the build rather than show its syntax on a desk.
      for (const [key, text] of Object.entries(texts)) {
        if (/[{}]/.test(text.replace(/\{\w+\}/g, '')))
          throw new Error(`${file}: ${key} uses message syntax language.ts cannot render`);
      }
      const more = part === 'more';
      const pack = Object.fromEntries(Object.entries(texts).filter(([key]) => isMoreKey(key) === more));
      return `export default ${JSON.stringify(pack)};`;
    },
    transform(code, id, options) {
      if (options?.ssr || this.environment?.config.consumer === 'server') return undefined;
      const file = id.split('?')[0];
      if (dirname(file) !== compiledDir || basename(file) === '_index.js') return undefined;
      const m = EXPORTED.exec(code);
      const key = m?.[1] ?? m?.[2];
      if (!key) throw new Error(`${file}: no exported message found (has Paraglide's output changed?)`);
      keyOf.set(file, key);
      return {
        code: `import { message } from ${JSON.stringify(runtime)};\nexport const ${key} = /* @__PURE__ */ message(${JSON.stringify(key)});\n`,
        map: null,
      };
    },
    generateBundle(_options, bundle) {
      if (this.environment?.config.consumer === 'server') return;
      // Every chunk a desk route can load (statically or on demand) may use the desk's pack only.
      const chunks = new Map(
        Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [[c.fileName, c] as const] : [])),
      );
      const queue = [...chunks.values()]
        .filter((c) => c.moduleIds.some((id) => deskRoutes.includes(id.split('?')[0])))
        .map((c) => c.fileName);
      if (queue.length < deskRoutes.length) return; // not the client build of the app
      const seen = new Set<string>();
      const wrong = new Set<string>();
      for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
        const chunk = chunks.get(name);
        if (!chunk || seen.has(name)) continue;
        seen.add(name);
        for (const id of chunk.moduleIds) {
          const key = keyOf.get(id.split('?')[0]);
          if (key && isMoreKey(key)) wrong.add(key);
        }
        queue.push(...chunk.imports, ...chunk.dynamicImports);
      }
      if (wrong.size > 0) {
        this.error(
          `the student's desk uses messages that only the other pages load (web/lib/i18n/packs.ts): ${[...wrong].sort().join(', ')}`,
        );
      }
    },
  };
}
