/**
 * The page's model: the embedded payload (payload.ts) decoded into the arrays uPlot draws.
 * Demand and forecast are divided by mu, so they share the capacity axis: where the demand line
 * crosses above a policy's ready line, that policy is short of capacity (the oracle sits exactly
 * at ceil(demand)). The oracle listed as a policy is left out of the charts (`floor`): the grey
 * floor is its capacity already. Which day the page opens on and which policies it shows first
 * come from view.ts.
 */
import { decodeSeries } from '../codec.ts';
import { unpackDecision } from '../messages.ts';
import { minuteRuns } from '../time.ts';
import { busiestDay, firstForecastMinute, mostViolationsDay, shownAtStart } from '../view.ts';

/**
 * The forecast in instances, null before its first minute (uPlot draws nothing for null: no
 * band at zero, and the legend reads "no forecast yet" instead of "0 req/min"); null as a whole
 * when the result's band never rises above zero.
 */
function forecastModel(f, series, mu) {
  if (!f) return null;
  const raw = [f.p50, f.p90, ...(f.p99 === null ? [] : [f.p99])].map(series);
  const from = firstForecastMinute(raw);
  if (from === null) return null;
  const perInstance = (values) => Array.from(values, (v, m) => (m < from ? null : v / mu));
  const [p50, p90, p99] = raw.map(perInstance);
  return { from, p50, p90, p99: p99 ?? null };
}

export function readModel(payload) {
  const { mu, minutes, text } = payload;
  const series = (i) => decodeSeries(payload.series[i]);
  const x = new Float64Array(minutes);
  for (let i = 0; i < minutes; i++) x[i] = i;
  const demand = series(payload.demand);
  const drawn = payload.policies.filter((p) => !p.floor);
  const shown = shownAtStart(drawn.map((p) => p.name));
  const policies = drawn.map((p, i) => {
    const violations = series(p.violations);
    return {
      name: p.name,
      color: p.color,
      shownAtStart: shown[i],
      ready: series(p.ready),
      provisioned: series(p.provisioned),
      warmPool: p.warmPool === null ? null : series(p.warmPool),
      violationMinutes: violations.length,
      worstDay: mostViolationsDay(violations, minutes),
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
    forecast: forecastModel(payload.forecast, series, mu),
    policies,
  };
}
