// What every line chart of Opsroom shares: drawn once and updated in place (no animation, no pointer
// events), minutes on a linear x axis from 0 to the round's length, numbers in the reader's locale.
import type { ChartOptions } from 'chart.js';
import { intlLocale } from '$shared/format.ts';

const GRID_COLOR = '#e6e9ee';

/** Fresh objects on every call: each chart then changes its own scales (max, precision) in place. */
export function lineOptions(locale: string, minutes: number, xTicks: number, yTicks: number): ChartOptions<'line'> {
  return {
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    locale: intlLocale(locale),
    events: [],
    scales: {
      x: {
        type: 'linear',
        min: 0,
        max: minutes,
        ticks: { maxTicksLimit: xTicks, precision: 0 },
        grid: { color: GRID_COLOR },
        title: { display: false, text: '' },
      },
      y: {
        type: 'linear',
        ticks: { maxTicksLimit: yTicks },
        grid: { color: GRID_COLOR },
        title: { display: false, text: '' },
      },
    },
  };
}
