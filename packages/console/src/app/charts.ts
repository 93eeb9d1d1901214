// The usage charts: uPlot line charts of messages in and out and connections, sized to their container and
// coloured from the page's own text colour, so they read in light and dark.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Usage as the server sends it: start times (seconds) and a value per step. */
export interface Series {
  readonly t: number[];
  readonly in: number[];
  readonly out: number[];
  readonly connections: number[];
}

const charts = new Map<string, uPlot>();

// Axis colours come from the page's text colour when a chart is made: a change of the system's scheme drops the
// charts, and the next refresh draws them anew in the new colours.
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  for (const chart of charts.values()) chart.destroy();
  charts.clear();
});

function options(width: number): uPlot.Options {
  const ink = getComputedStyle(document.body).color;
  const grid = { stroke: 'rgba(128,128,128,0.25)', width: 1 };
  const axis = { stroke: ink, grid, ticks: grid };
  return {
    width,
    height: 220,
    series: [
      {},
      { label: 'Messages in', stroke: '#2563eb', width: 2 },
      { label: 'Messages out', stroke: '#16a34a', width: 2 },
      { label: 'Connections', stroke: '#d97706', width: 2, scale: 'conn' },
    ],
    axes: [axis, { ...axis, label: 'messages' }, { ...axis, side: 1, scale: 'conn', label: 'connections' }],
    scales: { conn: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
  };
}

/** Draws (or redraws) a chart in the element with this id. */
export function drawChart(id: string, series: Series): void {
  const element = document.getElementById(id);
  if (!element) return;
  const data: uPlot.AlignedData = [series.t, series.in, series.out, series.connections];
  const width = Math.max(240, element.clientWidth);
  const existing = charts.get(id);
  if (existing) {
    existing.setData(data);
    if (Math.abs(existing.width - width) > 2) existing.setSize({ width, height: 220 });
    return;
  }
  charts.set(id, new uPlot(options(width), data, element));
}

/** Fits the charts to their containers again (a resize, a rotated phone). */
export function resizeCharts(): void {
  for (const [id, chart] of charts) {
    const element = document.getElementById(id);
    if (element) chart.setSize({ width: Math.max(240, element.clientWidth), height: 220 });
  }
}
