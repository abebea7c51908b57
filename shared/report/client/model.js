/**
 * The page's model: the embedded payload (payload.ts) decoded into the typed arrays uPlot
 * draws. Demand and forecast are divided by mu, so they share the capacity axis: where the
 * demand line crosses above a policy's ready line, that policy is short of capacity (the
 * oracle sits exactly at ceil(demand)).
 */
import { decodeSeries } from '../codec.ts';
import { minuteRuns } from '../time.ts';

const perInstance = (series, mu) => {
  const out = decodeSeries(series);
  for (let i = 0; i < out.length; i++) out[i] /= mu;
  return out;
};

/** The day (1440 minutes from a midnight of the trace) holding the busiest minute. */
function busiestDay(demand) {
  let peak = 0;
  for (let i = 1; i < demand.length; i++) if (demand[i] > demand[peak]) peak = i;
  const start = Math.floor(peak / 1440) * 1440;
  return [start, Math.min(demand.length - 1, start + 1440)];
}

export function readModel(payload) {
  const { mu, minutes } = payload;
  const x = new Float64Array(minutes);
  for (let i = 0; i < minutes; i++) x[i] = i;
  const demand = decodeSeries(payload.demand);
  const f = payload.forecast;
  return {
    mu,
    minutes,
    x,
    demand: perInstance(payload.demand, mu),
    busiestDay: busiestDay(demand),
    oracle: decodeSeries(payload.oracle),
    forecast: f
      ? {
          p50: perInstance(f.p50, mu),
          p90: perInstance(f.p90, mu),
          p99: f.p99 ? perInstance(f.p99, mu) : null,
        }
      : null,
    policies: payload.policies.map((p) => {
      const violations = decodeSeries(p.violations);
      return {
        name: p.name,
        color: p.color,
        ready: decodeSeries(p.ready),
        provisioned: decodeSeries(p.provisioned),
        warmPool: p.warmPool ? decodeSeries(p.warmPool) : null,
        violationMinutes: violations.length,
        runs: minuteRuns(violations),
        decisions: p.decisions,
      };
    }),
  };
}
