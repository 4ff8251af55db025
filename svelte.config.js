import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
export default {
  preprocess: vitePreprocess(),
  kit: {
    // The web app lives in web/ (the repository's top level is server/, web/, shared/).
    files: {
      src: 'web',
      routes: 'web/routes',
      lib: 'web/lib',
      appTemplate: 'web/app.html',
      errorTemplate: 'web/error.html',
      assets: 'static',
      hooks: { client: 'web/hooks.client', server: 'web/hooks.server', universal: 'web/hooks' },
      params: 'web/params',
    },
    adapter: adapter({ pages: 'build', assets: 'build', fallback: 'index.html', precompress: true }),
    alias: { $shared: 'shared' },
  },
};
