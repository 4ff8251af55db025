// A line chart of one indicator over the round, as a Svelte attachment: the chart is created once
// per canvas, then each new minute mutates its data and redraws without animation. Only the pieces
// used are registered, so the bundle carries no other chart types.
import { Chart, LinearScale, LineController, LineElement, PointElement, type Plugin } from 'chart.js';
import { untrack } from 'svelte';
import type { Attachment } from 'svelte/attachments';
import type { ChartLayout } from './flags.ts';
import { yRange } from './range.ts';
import { lineOptions } from './base.ts';

Chart.register(LineController, LineElement, PointElement, LinearScale);

export interface TrendInput {
  points: { x: number; y: number }[];
  /** The x axis spans the whole round, so the line grows towards the end. */
  minutes: number;
  /** Minutes with a control change: dashed vertical marks. */
  markers: number[];
  /** Chart.js formats the ticks with it (99,9 in Italian). */
  locale: string;
  /** Decimals the indicator is shown with: ticks never get finer than that. */
  digits: number;
}

const markerPlugin: Plugin<'line'> = {
  id: 'changeMarkers',
  afterDatasetsDraw(chart) {
    const marks = (chart.options.plugins as { changeMarkers?: { minutes: number[] } }).changeMarkers?.minutes ?? [];
    const { ctx, chartArea, scales } = chart;
    ctx.save();
    ctx.strokeStyle = '#6d28d9';
    ctx.lineWidth = 1;
    ctx.setLineDash([4, 3]);
    for (const minute of marks) {
      const x = scales.x.getPixelForValue(minute);
      if (x < chartArea.left || x > chartArea.right) continue;
      ctx.beginPath();
      ctx.moveTo(x, chartArea.top);
      ctx.lineTo(x, chartArea.bottom);
      ctx.stroke();
    }
    ctx.restore();
  },
};

/** Tells the page where the chart area lies after every layout (updates and resizes), for HTML drawn over it. */
function layoutReporter(onlayout: (layout: ChartLayout) => void): Plugin<'line'> {
  return {
    id: 'layoutReport',
    afterLayout(chart) {
      const { chartArea, scales } = chart;
      onlayout({ left: chartArea.left, right: chartArea.right, min: scales.x.min, max: scales.x.max });
    },
  };
}

export function trendChart(input: () => TrendInput, color = '#1d4ed8', onlayout?: (layout: ChartLayout) => void): Attachment<HTMLCanvasElement> {
  return (canvas) => {
    const first = untrack(input);
    const chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [{ data: [] as { x: number; y: number }[], borderColor: color, borderWidth: 2, pointRadius: 0, tension: 0, parsing: false, normalized: true }] },
      options: { ...lineOptions(first.locale, first.minutes, 7, 5), plugins: { changeMarkers: { minutes: [] } } as never },
      plugins: onlayout ? [markerPlugin, layoutReporter(onlayout)] : [markerPlugin],
    });
    $effect(() => {
      const d = input();
      chart.data.datasets[0].data = d.points;
      const x = chart.options.scales!.x!;
      x.max = Math.max(d.minutes, d.points.at(-1)?.x ?? 0);
      const y = chart.options.scales!.y as { min?: number; max?: number; ticks: { precision?: number } };
      Object.assign(y, { min: undefined, max: undefined }, yRange(d.points.map((p) => p.y), d.digits));
      y.ticks.precision = d.digits;
      (chart.options.plugins as { changeMarkers: { minutes: number[] } }).changeMarkers.minutes = d.markers;
      chart.update('none');
    });
    return () => chart.destroy();
  };
}
