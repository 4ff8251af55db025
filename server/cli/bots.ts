// Entry point of `npm run bots` (the bots themselves: bots-cli.ts).
import { parseBotsArgs, runBots, USAGE, UsageError, type BotsOptions } from './bots-cli.ts';

async function main(): Promise<void> {
  let opts: BotsOptions;
  try {
    opts = parseBotsArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${e.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const bots = runBots(opts);
  process.once('SIGINT', () => bots.stop());
  process.once('SIGTERM', () => bots.stop());
  process.stdout.write(`${opts.students} ${opts.skill} bots joining ${opts.code} at ${opts.url}…\n`);
  try {
    const r = await bots.done;
    const refused = Object.entries(r.refused)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    process.stdout.write(
      `${r.joined} bots played; ${r.sent} changes sent${refused ? `, refused: ${refused}` : ''}` +
        (r.scores
          ? `; round over: ${r.scores.teams.map((t) => `${t.name || `team ${t.teamId}`} ${t.score ?? '—'}`).join(', ')}`
          : '') +
        '\n',
    );
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}

void main();
