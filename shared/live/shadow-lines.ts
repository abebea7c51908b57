/**
 * The shadow report as text: the verdict first, then the figures either way, what was not
 * compared and why, and where each series was read; and what its HTML page draws. Pure.
 */
import { maxOf } from '../arrays/extent.ts';
import type { ShadowPage } from '../report/shadow-html.ts';
import { type ShadowReport, usd } from './shadow.ts';

const n0 = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });
const n1 = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const utc = (t: number) => `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')}Z`;

/** Rows of [label, Governor, fleet] or [label, text]: also the HTML page's table. */
export function shadowRows(r: ShadowReport): [string, string, string?][] {
  const f = r.figures;
  const rows: [string, string, string?][] = [
    ['instance-hours', n1(f.governorInstanceHours), n1(f.fleetInstanceHours)],
  ];
  if (r.price && f.governorUsd !== null && f.fleetUsd !== null)
    rows.push([
      `cost USD (${r.price.usdPerHour} an instance-hour, ${r.price.source})`,
      usd(f.governorUsd),
      usd(f.fleetUsd),
    ]);
  else rows.push(['cost', 'no price: pass --usd-per-hour, or give the target a capacityMix']);
  rows.push(
    ['minutes short / long', `${n0(f.shortMinutes)} / ${n0(f.longMinutes)} of ${n0(f.compared)} compared`],
    [
      'largest shortfall',
      `${n0(f.largestShortfall)} instance${f.largestShortfall === 1 ? '' : 's'} in one minute`,
    ],
  );
  rows.push([
    'fleet over its SLO',
    r.latency
      ? `${n0(f.fleetOverSlo)} of ${n0(f.latencyMinutes)} minutes with a ${r.latency.metric} reading (SLO ${n0(r.latency.sloMs)} ms)`
      : 'not read: the target has no latency signal with a CloudWatch source',
  ]);
  rows.push([
    'not compared',
    `${n0(f.withoutDecision)} minutes without a fresh shadow decision${f.activeDecisions > 0 ? ` (${n0(f.activeDecisions)} active-mode decisions left out)` : ''}, ${n0(f.withoutFleet)} without the fleet's capacity`,
  ]);
  rows.push(['fleet capacity from', r.fleetSource]);
  return rows;
}

export function shadowLines(r: ShadowReport): string[] {
  const rows = shadowRows(r);
  const width = maxOf(rows.map(([label]) => label.length)) + 2;
  return [
    r.verdict,
    '',
    `${r.targetId}, ${utc(r.start)} to ${utc(r.end)}`,
    `${''.padEnd(width)}${'Governor (shadow)'.padStart(18)}${'the fleet'.padStart(14)}`,
    ...rows.map(([label, a, b]) =>
      b === undefined
        ? `${label.padEnd(width)}${a}`
        : `${label.padEnd(width)}${a.padStart(18)}${b.padStart(14)}`,
    ),
  ];
}

/** What the HTML page draws (shared/report/shadow-html.ts): the verdict, the rows and the series. */
export function shadowPage(r: ShadowReport): ShadowPage {
  return {
    title: `Governor shadow report: ${r.targetId}`,
    verdict: r.verdict,
    rows: shadowRows(r),
    chart: {
      x: r.series.map((m) => m.at / 1000),
      governor: r.series.map((m) => m.governor),
      fleet: r.series.map((m) => m.fleet),
      latency: r.latency ? r.series.map((m) => m.latencyMs) : null,
      sloMs: r.latency?.sloMs ?? null,
      latencyLabel: r.latency?.metric ?? '',
    },
  };
}
