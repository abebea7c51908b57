/**
 * The SLO objective's cross-field rules: the SLI is the latency signal's reading against its
 * sloMs, so an objective needs a latency signal; a share-of-requests objective needs the request
 * count, which only an invocationsPerInstance signal reads.
 */
import { isLatencySignal, type TargetPolicy } from './schema.ts';

type Path = (string | number)[];

export function sloProblems(t: TargetPolicy, at: Path, add: (path: Path, message: string) => void): void {
  if (!t.slo) return;
  if (!t.signals.some(isLatencySignal)) {
    add(
      [...at, 'slo'],
      'needs a p95LatencyMs (or p99LatencyMs) signal: its sloMs is the threshold every minute is judged against; add one, or remove slo',
    );
  }
  if (
    t.slo.objective.requests !== undefined &&
    !t.signals.some((s) => s.metric === 'invocationsPerInstance')
  ) {
    add(
      [...at, 'slo', 'objective', 'requests'],
      'needs the request count, which only an invocationsPerInstance signal reads: add one, or remove objective.requests and keep the minutes objective',
    );
  }
}
