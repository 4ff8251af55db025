// The languages' texts, made by one-language.ts (a Vite plugin) from web/messages/<locale>.json.
declare module 'virtual:opsroom-language/*' {
  const texts: Record<string, string>;
  export default texts;
}
