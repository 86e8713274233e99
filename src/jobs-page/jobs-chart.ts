import type { HtmlTemplate, SafeHtml } from './html.js';
import { type DayPoint, fixRate } from './jobs-stats.js';

const WIDTH = 760;
const HEIGHT = 240;
const PLOT = { left: 44, right: 52, top: 28, bottom: 34 };

/** A scale top for the jobs axis: a round number at or above `max`. */
export function niceMax(max: number): number {
  if (max <= 4) return Math.max(1, max);
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / (step / 2)) * (step / 2);
}

/**
 * Jobs per day as bars (left axis) and the day's fix rate as a line (right
 * axis, 0–100 %), drawn on the server as inline SVG: no script, no library.
 * Each bar carries a <title> with the day's numbers for a hover tooltip.
 */
export function jobsChart(html: HtmlTemplate, points: readonly DayPoint[]): SafeHtml {
  const frame = chartFrame(points);
  const { top, y } = frame;
  const { line, dots } = rateLine(html, points, frame);
  const right = WIDTH - PLOT.right;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Jobs per day and fix rate, last ${points.length} days" xmlns="http://www.w3.org/2000/svg">
<line class="grid" x1="${PLOT.left}" x2="${right}" y1="${y(1)}" y2="${y(1)}"></line>
<line class="grid" x1="${PLOT.left}" x2="${right}" y1="${y(0.5)}" y2="${y(0.5)}"></line>
<line class="base" x1="${PLOT.left}" x2="${right}" y1="${y(0)}" y2="${y(0)}"></line>
<text class="axis" x="${PLOT.left - 6}" y="${y(1) + 4}" text-anchor="end">${top}</text>
<text class="axis" x="${PLOT.left - 6}" y="${y(0) + 4}" text-anchor="end">0</text>
<text class="axis" x="${right + 6}" y="${y(1) + 4}">100 %</text>
<text class="axis" x="${right + 6}" y="${y(0.5) + 4}">50 %</text>
<text class="axis" x="${right + 6}" y="${y(0) + 4}">0 %</text>
${jobBars(html, points, frame)}
<polyline class="rate" points="${line.join(' ')}"></polyline>
${dots}
${dayLabels(html, points, frame)}
<rect class="bar" x="${PLOT.left}" y="8" width="12" height="10"></rect><text class="legend" x="${PLOT.left + 18}" y="17">jobs finished</text>
<line class="rate" x1="${PLOT.left + 130}" x2="${PLOT.left + 152}" y1="13" y2="13"></line><text class="legend" x="${PLOT.left + 158}" y="17">fix rate</text>
</svg>`;
}

/** Where things go: one slot per day, `x` its left edge, `y` a share of the plot's height from its bottom. */
interface ChartFrame {
  plotHeight: number;
  /** The jobs axis' top value. */
  top: number;
  slot: number;
  x: (index: number) => number;
  y: (share: number) => number;
}

function chartFrame(points: readonly DayPoint[]): ChartFrame {
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / Math.max(1, points.length);
  return {
    plotHeight,
    top: niceMax(Math.max(0, ...points.map((point) => point.jobs))),
    slot,
    x: (index) => PLOT.left + slot * index,
    y: (share) => PLOT.top + plotHeight * (1 - share),
  };
}

function jobBars(html: HtmlTemplate, points: readonly DayPoint[], frame: ChartFrame): SafeHtml[] {
  const { plotHeight, top, slot, x } = frame;
  return points.map((point, index) => {
    const height = (plotHeight * point.jobs) / top;
    const rate = fixRate(point);
    const label = `${point.day}: ${point.jobs} jobs, ${point.fixed} fixed${rate === null ? '' : ` (${Math.round(rate * 100)} %)`}`;
    return html`<rect class="bar" x="${(x(index) + slot * 0.15).toFixed(1)}" y="${(PLOT.top + plotHeight - height).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}"><title>${label}</title></rect>`;
  });
}

/** The fix rate's line and a dot per day, through the middle of each slot; days without a rate are skipped. */
function rateLine(html: HtmlTemplate, points: readonly DayPoint[], frame: ChartFrame) {
  const { slot, x, y } = frame;
  const rated = points
    .map((point, index) => ({ index, rate: fixRate(point) }))
    .filter((point): point is { index: number; rate: number } => point.rate !== null);
  const line = rated.map((point) => `${(x(point.index) + slot / 2).toFixed(1)},${y(point.rate).toFixed(1)}`);
  const dots = rated.map(
    (point) =>
      html`<circle class="rate" cx="${(x(point.index) + slot / 2).toFixed(1)}" cy="${y(point.rate).toFixed(1)}" r="3"></circle>`,
  );
  return { line, dots };
}

/** About seven dates along the bottom (month and day), and always the last. */
function dayLabels(html: HtmlTemplate, points: readonly DayPoint[], frame: ChartFrame): (SafeHtml | null)[] {
  const { slot, x } = frame;
  const every = Math.max(1, Math.ceil(points.length / 7));
  return points.map((point, index) =>
    index % every === 0 || index === points.length - 1
      ? html`<text class="axis" x="${(x(index) + slot / 2).toFixed(1)}" y="${HEIGHT - 12}" text-anchor="middle">${point.day.slice(5)}</text>`
      : null,
  );
}
