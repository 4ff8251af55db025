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
    '--set', 'shedding=on', '--set', 'retryPolicy=backoff',
    '--on', 'surge-start', 'servers=11',
    '--on', 'flash-sale-start', 'servers=16',
    '--on', 'card-testing-start', 'fraudThreshold=3.1', 'stepUpBand=1.3',
    '--on', 'issuer-slow', 'issuerTimeoutS=1.5', 'standInLimit=60',
    '--on', 'newTps<450', 'servers=6',
    '--on', 'card-testing-over', 'fraudThreshold=3', 'stepUpBand=0',
  ],
  'issuer-trouble': [
    '--set', 'shedding=on', '--set', 'retryPolicy=backoff',
    '--on', 'issuer-slow', 'issuerTimeoutS=1', 'standInLimit=60', 'servers=9',
    '--on', 'card-testing-start', 'fraudThreshold=3.1', 'stepUpBand=1.3',
    '--on', 'surge-start', 'servers=12',
    '--on', 'groupBLatencyMs<1000', 'issuerTimeoutS=8', 'standInLimit=0', 'servers=8',
    '--on', 'card-testing-over', 'fraudThreshold=3', 'stepUpBand=0',
  ],
};
