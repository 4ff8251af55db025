import { paraglideVitePlugin } from '@inlang/paraglide-js';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig, type Plugin } from 'vite';
import { oneLanguage } from './web/lib/i18n/one-language.ts';

const LOCALES = ['en', 'id', 'hu', 'it', 'nl', 'ne'] as const;

/**
 * The built-in scenario files as the browser gets them (the desk's JavaScript budget): without their words, which the
 * pages take from the app's translations in every language, and without their shocks, which only the engine reads
 * (the browser never plays a round: its pages draw the meta's scenarios, `ScenarioFace`). The files on disk, and the
 * server, keep both.
 */
function builtInScenariosAsDrawn(): Plugin {
  return {
    name: 'opsroom:built-in-scenarios',
    enforce: 'pre',
    transform(code, id) {
      if (!/\/shared\/scenarios\/builtin\/[^/]+\/[^/]+\.json$/.test(id)) return null;
      const { briefs: _words, shocks: _shocks, ...file } = JSON.parse(code);
      return { code: JSON.stringify(file), map: null };
    },
  };
}

export default defineConfig({
  plugins: [
    paraglideVitePlugin({
      project: './project.inlang',
      outdir: './web/lib/paraglide',
      strategy: ['localStorage', 'preferredLanguage', 'baseLocale'],
    }),
    // The browser downloads the reader's language only (web/lib/i18n/one-language.ts).
    oneLanguage({
      messages: './web/messages',
      compiled: './web/lib/paraglide/messages',
      runtime: './web/lib/i18n/language.ts',
      locales: LOCALES,
      // The student's pages: they load the desk's words only (web/lib/i18n/packs.ts).
      deskRoutes: [
        './web/routes/+layout.svelte',
        './web/routes/play/[code]/+page.svelte',
        './web/routes/join/[code]/+page.svelte',
      ],
    }),
    builtInScenariosAsDrawn(),
    sveltekit(),
  ],
  server: {
    proxy: {
      '/api': { target: 'http://localhost:3000', ws: true },
      '/socket.io': { target: 'http://localhost:3000', ws: true },
    },
  },
});
