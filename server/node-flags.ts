// Node's flags for an Opsroom server process, wherever it is started: `npm start` and `npm run serve`
// (package.json repeats them: a test keeps the two in step), `npm run cluster`'s processes and the bench's servers.
//
// A young generation of up to 256 MB: a room's state for one minute lives one tempo (a second at the fastest),
// and a young generation that large is collected every 2–3 s at 10,000 students, so most minutes die young
// instead of being copied and promoted. Only since a room keeps no past minute (state.ts) does the larger size pay:
// before, what a scavenge copied grew with the time between two (docs/performance-log.md, "The tenth stretch").
//
// No allocation-site pretenuring: V8 sees a minute's objects all alive at a scavenge (they live one tempo, about
// the time between two) and starts allocating them straight in the old generation, where only a major collection
// frees them. Without it they die young: 30–32 instead of 34–40 µs of CPU per team-minute in-process, a smaller
// heap (docs/performance-log.md, "The sixth stretch").
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=256', '--no-allocation-site-pretenuring'];
