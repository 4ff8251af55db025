// Several lines of one indicator on one chart (the replay's compare chart): every team of a round,
// and the original and its what-if rounds, over the whole round, with a solid cursor at the minute
// shown. Each line has its own colour *and* dash pattern, so they differ without colour too.
import { Chart, LinearScale, LineController, LineElement, PointElement, type Plugin } from 'chart.js';
import { untrack } from 'svelte';
import type { Attachment } from 'svelte/attachments';
import { yRange } from './range.ts';
import { lineOptions } from './base.ts';

Chart.register(LineController, LineElement, PointElement, LinearScale);

export interface CompareSeries {
  id: string;
  color: string;
  dash: number[];
  points: { x: number; y: number }[];
}
export interface CompareInput {
  series: CompareSeries[];
  minutes: number;
  cursor: number;
  locale: string;
  digits: number;
}

const COLORS = ['#1d4ed8', '#b45309', '#047857', '#be185d', '#6d28d9', '#0e7490', '#4d7c0f', '#9f1239'];
const DASHES = [[], [7, 4], [2, 3], [10, 3, 2, 3]];

/** The i-th line's style: colours and dashes cycle at different lengths, so pairs repeat late. */
export function lineStyle(i: number): { color: string; dash: number[] } {
  return { color: COLORS[i % COLORS.length], dash: DASHES[i % DASHES.length] };
}

const cursorPlugin: Plugin<'line'> = {
  id: 'minuteCursor',
  afterDatasetsDraw(chart) {
    const minute = (chart.options.plugins as { minuteCursor?: { minute: number } }).minuteCursor?.minute;
    if (minute === undefined) return;
    const { ctx, chartArea, scales } = chart;
    const x = scales.x.getPixelForValue(minute);
    if (x < chartArea.left || x > chartArea.right) return;
    ctx.save();
    ctx.strokeStyle = '#16202c';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, chartArea.top);
    ctx.lineTo(x, chartArea.bottom);
    ctx.stroke();
    ctx.restore();
  },
};

export function compareChart(input: () => CompareInput): Attachment<HTMLCanvasElement> {
  return (canvas) => {
    const first = untrack(input);
    const chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: { ...lineOptions(first.locale, first.minutes, 9, 6), plugins: { minuteCursor: { minute: first.cursor } } as never },
      plugins: [cursorPlugin],
    });
    $effect(() => {
      const d = input();
      chart.data.datasets = d.series.map((s) => ({
        data: s.points,
        borderColor: s.color,
        borderDash: s.dash,
        borderWidth: 2,
        pointRadius: 0,
        tension: 0,
        parsing: false as const,
        normalized: true,
      }));
      chart.options.scales!.x!.max = d.minutes;
      const y = chart.options.scales!.y as { min?: number; max?: number; ticks: { precision?: number } };
      Object.assign(y, { min: undefined, max: undefined }, yRange(d.series.flatMap((s) => s.points.map((p) => p.y)), d.digits));
      y.ticks.precision = d.digits;
      (chart.options.plugins as { minuteCursor: { minute: number } }).minuteCursor.minute = d.cursor;
      chart.update('none');
    });
    return () => chart.destroy();
  };
}
