// The app renders in the browser only: the server sends snapshots, not pages.
export const ssr = false;
export const prerender = false;
