// The app renders in the browser only: the server sends snapshots, not pages.
import { loadLanguage } from '$lib/i18n/language.ts';
import { getLocale } from '$lib/paraglide/runtime.js';

export const ssr = false;
export const prerender = false;

// Every page's words, in the reader's language, before anything renders.
export const load = () => loadLanguage(getLocale());
