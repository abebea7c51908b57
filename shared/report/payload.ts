/**
 * The data a report page carries: a BacktestResult checked and reduced to what the charts
 * draw, with every per-minute series encoded compactly (codec.ts). Embedded in the page as JSON
 * and read by the page's script (client/main.js).
 */
import type { BacktestResult, DecisionMark } from '../backtest/types.ts';
import { type EncodedSeries, encodeSeries } from './codec.ts';

/**
 * Okabe-Ito colours, distinct for the common forms of colour blindness; the first goes to the
 * first policy (the backtest lists Governor first). Yellow is left out: unreadable on white.
 */
export const POLICY_COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

export const colorOf = (index: number): string => POLICY_COLORS[index % POLICY_COLORS.length]!;

/** [minute, action, from, to, reason codes, message]: a decision in few bytes. */
export type DecisionRow = [number, DecisionMark['action'], number, number, string[], string];

export interface PolicyPayload {
  name: string;
  color: string;
  ready: EncodedSeries;
  provisioned: EncodedSeries;
  /** Null when the policy keeps no warm pool (all zeros), so the page offers no empty line. */
  warmPool: EncodedSeries | null;
  /** The violating minutes (indices), ascending. */
  violations: EncodedSeries;
  decisions: DecisionRow[];
}

export interface ReportPayload {
  minutes: number;
  /** Requests per minute one instance serves at the SLO: demand is drawn as r / mu instances. */
  mu: number;
  demand: EncodedSeries;
  oracle: EncodedSeries;
  forecast: { p50: EncodedSeries; p90: EncodedSeries; p99: EncodedSeries | null } | null;
  policies: PolicyPayload[];
}

/** A result the report cannot draw: the message names the field and what it should be. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
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

function decisionRows(marks: readonly DecisionMark[], field: string, minutes: number): DecisionRow[] {
  const bad = marks.findIndex((d) => !Number.isInteger(d.minute) || d.minute < 0 || d.minute >= minutes);
  if (bad >= 0) {
    throw new ReportInputError(
      `report: ${field}[${bad}].minute is ${marks[bad]!.minute}; expected a whole minute in 0..${minutes - 1}`,
    );
  }
  const rows = marks.map((d): DecisionRow => [d.minute, d.action, d.from, d.to, [...d.reasons], d.message]);
  return rows.sort((a, b) => a[0] - b[0]);
}

export function buildPayload(result: BacktestResult): ReportPayload {
  const minutes = result.demand.length;
  if (minutes === 0)
    throw new ReportInputError('report: demand is empty; a report needs at least one minute');
  const mu = result.scenario.mu;
  if (!(mu > 0))
    throw new ReportInputError(`report: scenario.mu is ${mu}; expected requests per minute above 0`);
  const f = result.forecast;
  return {
    minutes,
    mu,
    demand: perMinute(result.demand, 'demand', minutes),
    oracle: perMinute(result.oracle, 'oracle', minutes),
    forecast: f
      ? {
          p50: perMinute(f.p50, 'forecast.p50', minutes),
          p90: perMinute(f.p90, 'forecast.p90', minutes),
          p99: f.p99 ? perMinute(f.p99, 'forecast.p99', minutes) : null,
        }
      : null,
    policies: result.policies.map((run, i) => {
      const at = `policies[${i}] (${run.summary.name})`;
      const warm = run.series.warmPool;
      return {
        name: run.summary.name,
        color: colorOf(i),
        ready: perMinute(run.series.ready, `${at}.series.ready`, minutes),
        provisioned: perMinute(run.series.provisioned, `${at}.series.provisioned`, minutes),
        warmPool: warm?.some((v) => v !== 0) ? perMinute(warm, `${at}.series.warmPool`, minutes) : null,
        violations: encodeSeries(
          minuteList(run.series.violationMinutes, `${at}.series.violationMinutes`, minutes),
        ),
        decisions: decisionRows(run.decisions ?? [], `${at}.decisions`, minutes),
      };
    }),
  };
}
