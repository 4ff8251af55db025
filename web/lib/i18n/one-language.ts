// A Vite plugin for the browser build: each message module Paraglide compiles (all six languages in
// one function) becomes `message('key')` from language.ts, and each language becomes a module of its
// own (`virtual:opsroom-language/<locale>`, the texts of web/messages/<locale>.json) that the root
// layout loads for the reader. Tree-shaking still keeps only the messages a route uses; the texts
// come in one language. The server build and node tests keep Paraglide's functions as they are.
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Plugin } from 'vite';

const PREFIX = 'virtual:opsroom-language/';
/** `export const app_name = …` or `export { err_bad_request10 as "err_BAD_REQUEST" }`. */
const EXPORTED = /export const (\w+) =|export \{ \w+ as "(\w+)" \}/;

export function oneLanguage(opts: { messages: string; compiled: string; runtime: string; locales: readonly string[] }): Plugin {
  const compiledDir = resolve(opts.compiled);
  const runtime = resolve(opts.runtime);
  return {
    name: 'opsroom-one-language',
    enforce: 'post',
    resolveId(id) {
      return id.startsWith(PREFIX) ? `\0${id}` : undefined;
    },
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return undefined;
      const locale = id.slice(PREFIX.length + 1);
      if (!opts.locales.includes(locale)) throw new Error(`unknown language ${locale}`);
      const file = resolve(opts.messages, `${locale}.json`);
      this.addWatchFile(file);
      const { $schema: _, ...texts } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
      // language.ts fills `{name}` and nothing else: anything more (plural or select variants) must
      // fail the build rather than show its syntax on a desk.
      for (const [key, text] of Object.entries(texts)) {
        if (/[{}]/.test(text.replace(/\{\w+\}/g, ''))) throw new Error(`${file}: ${key} uses message syntax language.ts cannot render`);
      }
      return `export default ${JSON.stringify(texts)};`;
    },
    transform(code, id, options) {
      if (options?.ssr || this.environment?.config.consumer === 'server') return undefined;
      const file = id.split('?')[0];
      if (dirname(file) !== compiledDir || basename(file) === '_index.js') return undefined;
      const m = EXPORTED.exec(code);
      const key = m?.[1] ?? m?.[2];
      if (!key) throw new Error(`${file}: no exported message found (has Paraglide's output changed?)`);
      return { code: `import { message } from ${JSON.stringify(runtime)};\nexport const ${key} = /* @__PURE__ */ message(${JSON.stringify(key)});\n`, map: null };
    },
  };
}
