import { paraglideVitePlugin } from '@inlang/paraglide-js';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
import { oneLanguage } from './web/lib/i18n/one-language.ts';

const LOCALES = ['en', 'id', 'hu', 'it', 'nl', 'ne'] as const;

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
    sveltekit(),
  ],
  server: {
    proxy: {
      '/api': { target: 'http://localhost:3000', ws: true },
      '/socket.io': { target: 'http://localhost:3000', ws: true },
    },
  },
});
