// The documented play of each payment-switch scenario, as `npm run sim` arguments after
// `--model payment-switch --scenario ID`. The model page (docs/models/payment-switch.md) quotes them;
// test/sim/payment-switch.plays.test.ts runs them through the CLI. The classic levels keep the seed
// era's timed plays; the full shifts react to what the desk shows, never to known minutes.
export const PLAYS: Readonly<Record<string, readonly string[]>> = {
  'sale-surge': ['--set', 'servers=10@6', '--set', 'shedding=on@6', '--set', 'retryPolicy=backoff@6', '--set', 'servers=6@52'],
  'fraud-wave': ['--set', 'fraudThreshold=2.7@6', '--set', 'stepUpBand=1.4@6'],
  'issuer-outage': [
    '--set', 'issuerTimeoutS=1@6', '--set', 'standInLimit=60@6', '--set', 'servers=9@6', '--set', 'shedding=on@6', '--set', 'retryPolicy=backoff@6',
  ],
  'sale-day': [
    '--set', 'shedding=on', '--set', 'retryPolicy=backoff', '--set', 'issuerTimeoutS=2.5',
    '--on', 'sale-announced+1', 'servers=11',
    '--on', 'newTps<450', 'servers=6',
    '--on', 'card-testing-start', 'stepUpBand=1.6',
    '--on', 'card-testing-over', 'stepUpBand=0',
    '--on', 'issuer-slow', 'issuerTimeoutS=1.3', 'standInLimit=100', 'servers=10',
    '--on', 'groupBLatencyMs<1000', 'issuerTimeoutS=8', 'standInLimit=0', 'servers=6',
  ],
  'issuer-trouble': [
    '--set', 'shedding=on', '--set', 'retryPolicy=backoff', '--set', 'issuerTimeoutS=2.5',
    '--on', 'issuer-slow', 'issuerTimeoutS=1.3', 'standInLimit=100', 'servers=12',
    '--on', 'sale-announced', 'servers=14',
    '--on', 'newTps<450', 'servers=12',
    '--on', 'groupBLatencyMs<1000', 'issuerTimeoutS=8', 'standInLimit=0',
    '--on', 'groupBLatencyMs<1000+4', 'servers=6',
    '--on', 'card-testing-start', 'stepUpBand=1.6',
    '--on', 'card-testing-over', 'stepUpBand=0',
  ],
};
