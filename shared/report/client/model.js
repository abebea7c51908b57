/**
 * The page's model: the embedded payload (payload.ts) decoded into the typed arrays uPlot
 * draws. Demand and forecast are divided by mu, so they share the capacity axis: where the
 * demand line crosses above a policy's ready line, that policy is short of capacity (the
 * oracle sits exactly at ceil(demand)). The oracle listed as a policy is left out of the
 * charts (`floor`): the grey floor is its capacity already.
 */
import { decodeSeries } from '../codec.ts';
import { unpackDecision } from '../messages.ts';
import { minuteRuns } from '../time.ts';

const DAY = 1440;

function dayOf(minute, minutes) {
  const start = Math.floor(minute / DAY) * DAY;
  return [start, Math.min(minutes - 1, start + DAY)];
}

/** The day (1440 minutes from a midnight of the trace) holding the busiest minute. */
function busiestDay(demand) {
  let peak = 0;
  for (let i = 1; i < demand.length; i++) if (demand[i] > demand[peak]) peak = i;
  return dayOf(peak, demand.length);
}

/** The day with the most violation minutes of a policy, or null when it never violated. */
function worstDay(violations, minutes) {
  const perDay = new Map();
  for (const m of violations) perDay.set(Math.floor(m / DAY), (perDay.get(Math.floor(m / DAY)) ?? 0) + 1);
  let best = null;
  for (const [day, n] of perDay) if (best === null || n > perDay.get(best)) best = day;
  return best === null ? null : dayOf(best * DAY, minutes);
}

export function readModel(payload) {
  const { mu, minutes, text } = payload;
  const series = (i) => decodeSeries(payload.series[i]);
  const perInstance = (i) => series(i).map((v) => v / mu);
  const x = new Float64Array(minutes);
  for (let i = 0; i < minutes; i++) x[i] = i;
  const demand = series(payload.demand);
  const f = payload.forecast;
  const policies = payload.policies
    .filter((p) => !p.floor)
    .map((p) => {
      const violations = series(p.violations);
      return {
        name: p.name,
        color: p.color,
        ready: series(p.ready),
        provisioned: series(p.provisioned),
        warmPool: p.warmPool === null ? null : series(p.warmPool),
        violationMinutes: violations.length,
        worstDay: worstDay(violations, minutes),
        runs: minuteRuns(violations),
        decisions: p.decisions.map((d) => unpackDecision(text, d)),
      };
    });
  return {
    mu,
    minutes,
    x,
    demand: demand.map((v) => v / mu),
    busiestDay: busiestDay(demand),
    oracle: series(payload.oracle),
    forecast: f
      ? { p50: perInstance(f.p50), p90: perInstance(f.p90), p99: f.p99 === null ? null : perInstance(f.p99) }
      : null,
    policies,
  };
}
