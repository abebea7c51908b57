/**
 * The data a report page carries: a BacktestResult checked and reduced to what the charts
 * draw, with every per-minute series encoded compactly (codec.ts). Embedded in the page as JSON
 * and read by the page's script (client/main.js).
 */
import type { BacktestResult, DecisionMark, PolicyRun } from '../backtest/types.ts';
import { type EncodedSeries, encodeSeries } from './codec.ts';
import { decisionPacker, type PackedDecision, type TextTable } from './messages.ts';

/**
 * Okabe-Ito colours, distinct for the common forms of colour blindness; the first goes to the
 * first policy (the backtest lists Governor first). Yellow is left out: unreadable on white.
 */
export const POLICY_COLORS = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  // Paul Tol's wine and olive: a backtest lists nine policies since the concurrency and best-target rows.
  '#882255',
  '#999933',
];

export const colorOf = (index: number): string => POLICY_COLORS[index % POLICY_COLORS.length]!;

/** Where a policy's series sit in `ReportPayload.series`. */
export interface PolicyPayload {
  name: string;
  color: string;
  /**
   * True for the oracle listed as a policy (named "oracle..."): its capacity is the grey floor
   * already, so the page keeps it in the tables but draws no line or violation row for it.
   */
  floor: boolean;
  ready: number;
  provisioned: number;
  /** Null when the policy keeps no warm pool (all zeros), so the page offers no empty line. */
  warmPool: number | null;
  /** The violating minutes (indices), ascending. */
  violations: number;
  decisions: PackedDecision[];
}

export interface ReportPayload {
  minutes: number;
  /** Requests per minute one instance serves at the SLO: demand is drawn as r / mu instances. */
  mu: number;
  /** Every series once: identical ones (ready = provisioned, the oracle policy) are shared. */
  series: EncodedSeries[];
  demand: number;
  oracle: number;
  forecast: { p50: number; p90: number; p99: number | null } | null;
  policies: PolicyPayload[];
  text: TextTable;
}

/** A result the report cannot draw: the message names the field and what it should be. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
}

/** Series encoded once each; `add` returns the index of an identical one when there is one. */
function seriesStore() {
  const series: EncodedSeries[] = [];
  const seen = new Map<string, number>();
  const add = (encoded: EncodedSeries): number => {
    const key = `${encoded.decimals}:${encoded.length}:${encoded.data}`;
    let i = seen.get(key);
    if (i === undefined) {
      i = series.push(encoded) - 1;
      seen.set(key, i);
    }
    return i;
  };
  return { series, add };
}

function perMinute(values: readonly number[] | undefined, field: string, minutes: number): EncodedSeries {
  if (!Array.isArray(values) || values.length !== minutes) {
    const got = Array.isArray(values) ? `${values.length} values` : 'no array';
    throw new ReportInputError(`report: ${field} has ${got}; expected ${minutes}, one per trace minute`);
  }
  try {
    return encodeSeries(values);
  } catch (error) {
    throw new ReportInputError(`report: ${field}: ${(error as Error).message}`);
  }
}

function minuteList(values: readonly number[], field: string, minutes: number): number[] {
  const bad = values.findIndex(
    (m, i) => !Number.isInteger(m) || m < 0 || m >= minutes || m <= (values[i - 1] ?? -1),
  );
  if (bad >= 0) {
    throw new ReportInputError(
      `report: ${field}[${bad}] is ${values[bad]}; expected ascending whole minutes in 0..${minutes - 1}`,
    );
  }
  return [...values];
}

function checkDecisions(marks: readonly DecisionMark[], field: string, minutes: number): DecisionMark[] {
  const bad = marks.findIndex((d) => !Number.isInteger(d.minute) || d.minute < 0 || d.minute >= minutes);
  if (bad >= 0) {
    throw new ReportInputError(
      `report: ${field}[${bad}].minute is ${marks[bad]!.minute}; expected a whole minute in 0..${minutes - 1}`,
    );
  }
  return [...marks].sort((a, b) => a.minute - b.minute);
}

export const isOracle = (name: string): boolean => /^oracle\b/i.test(name.trim());

type Store = ReturnType<typeof seriesStore>;

function policyPayload(
  run: PolicyRun,
  i: number,
  minutes: number,
  store: Store,
  pack: ReturnType<typeof decisionPacker>['pack'],
): PolicyPayload {
  const at = `policies[${i}] (${run.summary.name})`;
  const series = (values: readonly number[] | undefined, name: string) =>
    store.add(perMinute(values, `${at}.series.${name}`, minutes));
  const warm = run.series.warmPool;
  return {
    name: run.summary.name,
    color: colorOf(i),
    floor: isOracle(run.summary.name),
    ready: series(run.series.ready, 'ready'),
    provisioned: series(run.series.provisioned, 'provisioned'),
    warmPool: warm?.some((v) => v !== 0) ? series(warm, 'warmPool') : null,
    violations: store.add(
      encodeSeries(minuteList(run.series.violationMinutes, `${at}.series.violationMinutes`, minutes)),
    ),
    decisions: checkDecisions(run.decisions ?? [], `${at}.decisions`, minutes).map(pack),
  };
}

export function buildPayload(result: BacktestResult): ReportPayload {
  const minutes = result.demand.length;
  if (minutes === 0)
    throw new ReportInputError('report: demand is empty; a report needs at least one minute');
  const mu = result.scenario.mu;
  if (!(mu > 0))
    throw new ReportInputError(`report: scenario.mu is ${mu}; expected requests per minute above 0`);
  const store = seriesStore();
  const add = (values: readonly number[] | undefined, field: string) =>
    store.add(perMinute(values, field, minutes));
  const { table, pack } = decisionPacker();
  const f = result.forecast;
  return {
    minutes,
    mu,
    series: store.series,
    demand: add(result.demand, 'demand'),
    oracle: add(result.oracle, 'oracle'),
    forecast: f
      ? {
          p50: add(f.p50, 'forecast.p50'),
          p90: add(f.p90, 'forecast.p90'),
          p99: f.p99 ? add(f.p99, 'forecast.p99') : null,
        }
      : null,
    policies: result.policies.map((run, i) => policyPayload(run, i, minutes, store, pack)),
    text: table,
  };
}
