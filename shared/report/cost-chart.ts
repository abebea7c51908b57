/**
 * The report's unit-cost chart: each policy's cost per 1,000 requests per time bucket (a day, an
 * hour or 5 minutes: unit-cost.ts `bucketMinutes`) over the scored minutes, one line per policy
 * in its colour of the other charts, over the oracle's grey floor. Rendered on the server as an
 * inline SVG: it needs no script, reads in a mail, and every point carries a <title> to hover.
 */

import { maxOf } from '../arrays/extent.ts';
import type { BacktestResult } from '../backtest/types.ts';
import {
  bucketCostPer1k,
  bucketInstanceMinutes,
  bucketMinutes,
  type CostBucket,
  costBuckets,
} from '../backtest/unit-cost.ts';
import { escapeHtml, formatDuration, formatNumber, formatUsd } from './format.ts';
import { colorOf, isOracle } from './payload.ts';
import { formatMinute } from './time.ts';

/** The SVG's size and plot box in CSS pixels (the screenshot test maps data through them). */
export const COST_CHART = { width: 960, height: 300, left: 64, right: 16, top: 14, bottom: 34 } as const;

/**
 * A bucket with under 1 % of the busiest bucket's requests is not drawn: there the cost per
 * request is the fleet's floor over next to nothing (a night hour of a 1-instance fleet with 3
 * requests reads 500 USD per 1,000), and one such point would flatten every other.
 */
export const THIN_BUCKET = 0.01;

export interface CostLine {
  name: string;
  color: string;
  /** USD per 1,000 requests per bucket, null where not drawn. */
  values: (number | null)[];
}

export interface CostChartModel {
  bucket: number;
  buckets: CostBucket[];
  floor: (number | null)[];
  lines: CostLine[];
  /** The y axis runs from 0 to this (USD per 1,000 requests). */
  yMax: number;
}

/** 1, 2 or 5 times a power of ten, at or above x: the axis' top. */
export function niceCeiling(x: number): number {
  if (!(x > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(x));
  for (const step of [1, 2, 5, 10]) if (step * power >= x * (1 - 1e-12)) return step * power;
  return 10 * power;
}

export function costChartModel(result: BacktestResult): CostChartModel {
  const scoreFrom = result.trace.scoreFrom ?? 0;
  const bucket = bucketMinutes(result.demand.length - scoreFrom);
  const buckets = costBuckets(result.demand, scoreFrom, bucket);
  const busiest = maxOf(buckets.map((b) => b.requests));
  const thin = buckets.map((b) => b.requests < THIN_BUCKET * busiest);
  const price = result.scenario.pricePerInstanceHour;
  const drawn = (values: (number | null)[]) => values.map((v, i) => (thin[i] ? null : v));
  const oracleSeries = { provisioned: result.oracle, warmPool: [] };
  const floor = drawn(bucketCostPer1k(bucketInstanceMinutes(oracleSeries, buckets), buckets, price));
  const lines: CostLine[] = [];
  result.policies.forEach((p, i) => {
    if (isOracle(p.summary.name)) return;
    const values = drawn(bucketCostPer1k(bucketInstanceMinutes(p.series, buckets), buckets, price));
    lines.push({ name: p.summary.name, color: colorOf(i), values });
  });
  const top = maxOf(
    lines.flatMap((l) => l.values.map((v) => v ?? 0)),
    maxOf(
      floor.map((v) => v ?? 0),
      0,
    ),
  );
  return { bucket, buckets, floor, lines, yMax: niceCeiling(top) };
}

const BUCKET_WORDS: Record<number, string> = { 1440: 'day', 60: 'hour', 5: '5 minutes' };

/** Segments of consecutive drawn points, as SVG path data ("M x y L x y ..."). */
function pathData(values: (number | null)[], x: (i: number) => number, y: (v: number) => number): string {
  let d = '';
  let open = false;
  values.forEach((v, i) => {
    if (v === null) {
      open = false;
      return;
    }
    d += `${open ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)}`;
    open = true;
  });
  return d;
}

function floorArea(values: (number | null)[], x: (i: number) => number, y: (v: number) => number): string {
  const base = y(0).toFixed(1);
  const parts: string[] = [];
  let run: number[] = [];
  const close = () => {
    if (run.length === 0) return;
    const first = run[0]!;
    const last = run[run.length - 1]!;
    const top = run.map((i) => `L${x(i).toFixed(1)} ${y(values[i]!).toFixed(1)}`).join('');
    parts.push(`M${x(first).toFixed(1)} ${base}${top}L${x(last).toFixed(1)} ${base}Z`);
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null) close();
    else run.push(i);
  });
  close();
  return parts.join('');
}

function axes(model: CostChartModel, x: (i: number) => number, y: (v: number) => number): string {
  const { width, left, right } = COST_CHART;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * model.yMax);
  const grid = ticks.map(
    (t) =>
      `<line x1="${left}" x2="${width - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#dcdce0"/><text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(formatUsd(t))}</text>`,
  );
  const n = model.buckets.length;
  const every = Math.max(1, Math.ceil(n / 8));
  const labels = model.buckets.flatMap((b, i) =>
    i % every === 0
      ? [
          `<text x="${x(i).toFixed(1)}" y="${COST_CHART.height - 12}" text-anchor="middle">${escapeHtml(formatMinute(b.start))}</text>`,
        ]
      : [],
  );
  return grid.join('') + labels.join('');
}

function points(line: CostLine, model: CostChartModel, x: (i: number) => number, y: (v: number) => number) {
  return line.values
    .map((v, i) => {
      if (v === null) return '';
      const b = model.buckets[i]!;
      const title = `${line.name}, ${formatMinute(b.start)}: ${formatUsd(v)} per 1,000 requests (${formatNumber(b.requests)} requests)`;
      return `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${line.color}"><title>${escapeHtml(title)}</title></circle>`;
    })
    .join('');
}

export function costChartSvg(model: CostChartModel): string {
  const { width, height, left, right, top, bottom } = COST_CHART;
  const n = model.buckets.length;
  const plotWidth = width - left - right;
  const x = (i: number) => left + ((i + 0.5) * plotWidth) / n;
  const y = (v: number) => top + (1 - v / model.yMax) * (height - top - bottom);
  const floor = `<path d="${floorArea(model.floor, x, y)}" fill="rgba(0,0,0,0.07)"/><path d="${pathData(model.floor, x, y)}" fill="none" stroke="#8a8a8a" stroke-width="1"/>`;
  // Drawn last to first, so the first policy (Governor) is on top, as in the main chart.
  const lines = [...model.lines]
    .reverse()
    .map(
      (l, k) =>
        `<g class="cost-line" data-policy="${escapeHtml(l.name)}"><path d="${pathData(l.values, x, y)}" fill="none" stroke="${l.color}" stroke-width="${k === model.lines.length - 1 ? 2 : 1.5}"/>${points(l, model, x, y)}</g>`,
    );
  return `<svg id="cost-chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="Cost per 1,000 requests per ${BUCKET_WORDS[model.bucket] ?? 'bucket'}, each policy a line, the oracle as the grey floor">${axes(model, x, y)}${floor}${lines.join('')}</svg>`;
}

export function costSection(result: BacktestResult): string {
  const model = costChartModel(result);
  const per = BUCKET_WORDS[model.bucket] ?? `${model.bucket} minutes`;
  const legend = [
    '<span><span class="swatch" style="background:#d0d0d0" aria-hidden="true"></span>oracle (floor)</span>',
    ...model.lines.map(
      (l) =>
        `<span><span class="swatch" style="background:${l.color}" aria-hidden="true"></span>${escapeHtml(l.name)}</span>`,
    ),
  ].join(' ');
  const scored =
    result.trace.scoreFrom !== undefined
      ? ` Scored minutes only: from minute ${formatNumber(result.trace.scoreFrom)} on.`
      : '';
  return `<section aria-labelledby="cost-h">
<h2 id="cost-h">Cost per 1,000 requests</h2>
<p class="how">What each policy's fleet cost per 1,000 requests, per ${per} (${formatNumber(model.buckets.length)} points over
${escapeHtml(formatDuration(model.buckets.reduce((s, b) => s + b.end - b.start, 0)))}): the ${per}'s billed instances × the price,
over its requests. The grey floor is the oracle's: the least that meets the SLO. A ${per} with under 1 % of the busiest one's
requests is left out (its cost per request is the idle fleet over next to nothing).${scored} Hover a point for its figure.</p>
<figure class="cost-box">${costChartSvg(model)}<figcaption class="legend">${legend}</figcaption></figure>
</section>`;
}
