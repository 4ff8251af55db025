// The app renders in the browser only: the server sends snapshots, not pages.
import { DESK_ROUTES } from '$lib/i18n/packs.ts';
import { loadLanguage } from '$lib/i18n/language.ts';
import { getLocale } from '$lib/paraglide/runtime.js';

export const ssr = false;
export const prerender = false;

// Every page's words, in the reader's language, before anything renders; a student's pages need
// only the desk's (lib/i18n/packs.ts).
export const load = ({ route }: { route: { id: string | null } }) =>
  loadLanguage(getLocale(), !DESK_ROUTES.includes(route.id ?? ''));
