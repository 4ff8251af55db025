// Node's flags for an Opsroom server process, wherever it is started: `npm start` and `npm run serve`
// (package.json repeats them: a test keeps the two in step), `npm run cluster`'s processes and the bench's servers.
//
// A young generation of up to 128 MB: a room's state for one minute lives one tempo (a second at the fastest),
// and a young generation that large is collected less often than that, so most of it dies young instead of being
// copied and promoted (docs/performance.md).
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=128'];
