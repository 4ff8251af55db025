// Several lines of one indicator on one chart (the replay's compare chart): every team of a round,
// and the original and its what-if rounds, over the whole round, with a solid cursor at the minute
// shown. Each line has its own colour *and* dash pattern, so they differ without colour too. The
// axis is the desk's readable one (scale.ts), with its unit and the goal's dashed line.
import { Chart, LinearScale, LineController, LineElement, PointElement, type Plugin } from 'chart.js';
import { untrack } from 'svelte';
import type { Attachment } from 'svelte/attachments';
import { lineOptions } from './base.ts';
import { trendAxis } from './scale.ts';

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
  /** Shares in %: the axis stays within 0–100. */
  share: boolean;
  /** The goal lines, in display units. */
  goals: number[];
  /** The axes' titles: the indicator's unit, and the word for minutes. */
  unit: string;
  minuteLabel: string;
}

const COLORS = ['#1d4ed8', '#b45309', '#047857', '#be185d', '#6d28d9', '#0e7490', '#4d7c0f', '#9f1239'];
const DASHES = [[], [7, 4], [2, 3], [10, 3, 2, 3]];

/** The i-th line's style: colours and dashes cycle at different lengths, so pairs repeat late. */
export function lineStyle(i: number): { color: string; dash: number[] } {
  return { color: COLORS[i % COLORS.length], dash: DASHES[i % DASHES.length] };
}

interface Marks {
  minute: number;
  goals: number[];
}

/** The cursor at the minute shown (solid) and the goal lines (dashed), in ink. */
const marksPlugin: Plugin<'line'> = {
  id: 'marks',
  afterDatasetsDraw(chart) {
    const marks = (chart.options.plugins as { marks?: Marks }).marks;
    if (!marks) return;
    const { ctx, chartArea, scales } = chart;
    ctx.save();
    ctx.strokeStyle = '#16202c';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([6, 4]);
    for (const g of marks.goals) {
      const y = scales.y.getPixelForValue(g);
      if (y < chartArea.top || y > chartArea.bottom) continue;
      ctx.beginPath();
      ctx.moveTo(chartArea.left, y);
      ctx.lineTo(chartArea.right, y);
      ctx.stroke();
    }
    const x = scales.x.getPixelForValue(marks.minute);
    if (x >= chartArea.left && x <= chartArea.right) {
      ctx.lineWidth = 2;
      ctx.setLineDash([]);
      ctx.beginPath();
      ctx.moveTo(x, chartArea.top);
      ctx.lineTo(x, chartArea.bottom);
      ctx.stroke();
    }
    ctx.restore();
  },
};

export function compareChart(input: () => CompareInput): Attachment<HTMLCanvasElement> {
  return (canvas) => {
    const first = untrack(input);
    const chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: {
        ...lineOptions(first.locale, first.minutes, 9, 6),
        plugins: { marks: { minute: first.cursor, goals: [] } } as never,
      },
      plugins: [marksPlugin],
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
      const scales = chart.options.scales;
      if (!scales?.x || !scales.y) throw new Error('compare chart: lineOptions gives it an x and a y scale');
      const x = scales.x as { max?: number; title: { display: boolean; text: string } };
      x.max = d.minutes;
      x.title = { display: true, text: d.minuteLabel };
      const axis = trendAxis(
        d.series.flatMap((s) => s.points.map((p) => p.y)),
        d.goals,
        { digits: d.digits, share: d.share, maxTicks: 6 },
      );
      const y = scales.y as {
        min?: number;
        max?: number;
        ticks: { stepSize?: number };
        title: { display: boolean; text: string };
      };
      Object.assign(y, { min: axis.min, max: axis.max });
      y.ticks.stepSize = axis.ticks[1] - axis.ticks[0];
      y.title = { display: d.unit !== '', text: d.unit };
      Object.assign((chart.options.plugins as { marks: Marks }).marks, { minute: d.cursor, goals: d.goals });
      chart.update('none');
    });
    return () => chart.destroy();
  };
}
