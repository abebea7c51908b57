/**
 * Target tracking at its best target (BACKTEST.md, last section): the InvocationsPerInstance
 * baseline swept over targets 0.1 .. 1.0 x muSat, and the cheapest target whose run meets the
 * objective, chosen after the fact on the same trace (clairvoyant: it bounds what any operator
 * could have tuned target tracking to). Pure: the swept runs' figures in, the choice out; the
 * runs themselves are made by ./sweep.ts.
 */

export const BEST_TARGET_POLICY = 'aws-target-tracking-best';

/**
 * 0.10, 0.15, .. 1.00 x muSat: 19 targets. Target tracking simulates NASA's 39,693 minutes in
 * ~15 ms, so the finer step costs ~0.3 s a backtest and halves the interpolation's span.
 */
export const SWEEP_FRACTIONS: readonly number[] = Array.from({ length: 19 }, (_, i) =>
  Number((0.1 + 0.05 * i).toFixed(2)),
);

/** One swept target's run. */
export interface SweptPoint {
  /** The target as a fraction of muSat (0.5: AWS's recommendation). */
  fraction: number;
  instanceMinutes: number;
  costVsOracle: number;
  /** Share of scored minutes within the SLO. */
  attainment: number;
  meetsObjective: boolean;
}

function sorted(points: readonly SweptPoint[], field: string): SweptPoint[] {
  if (points.length === 0)
    throw new RangeError(`${field}: no swept targets; sweep at least one (SWEEP_FRACTIONS)`);
  return [...points].sort((a, b) => a.fraction - b.fraction);
}

/**
 * The cheapest target that meets the objective; on equal cost the higher attainment. Null:
 * no target meets it ("cannot meet it at any target").
 */
export function bestTarget(points: readonly SweptPoint[]): SweptPoint | null {
  let best: SweptPoint | null = null;
  for (const p of sorted(points, 'bestTarget')) {
    if (!p.meetsObjective) continue;
    const cheaper =
      best === null ||
      p.instanceMinutes < best.instanceMinutes ||
      (p.instanceMinutes === best.instanceMinutes && p.attainment > best.attainment);
    if (cheaper) best = p;
  }
  return best;
}

/** When no target meets the objective, the one that comes closest (highest attainment, then cheapest). */
export function closestTarget(points: readonly SweptPoint[]): SweptPoint {
  return sorted(points, 'closestTarget').reduce((a, b) =>
    b.attainment > a.attainment || (b.attainment === a.attainment && b.instanceMinutes < a.instanceMinutes)
      ? b
      : a,
  );
}

/**
 * What target tracking pays to reach attainment `a`: the cheapest of the swept points that reach
 * it, and of the points on the segment between two adjacent targets where the attainment crosses
 * `a` (cost linear in attainment between them). Null when no swept target reaches `a`.
 * Worked example (tests/backtest/best-target.test.ts): 0.4 x at 99.8 % for 1,000
 * instance-minutes and 0.5 x at 99.4 % for 800: 99.6 % costs 900.
 */
export function costAtAttainment(points: readonly SweptPoint[], a: number): number | null {
  const ps = sorted(points, 'costAtAttainment');
  let cost: number | null = null;
  const take = (c: number) => {
    if (cost === null || c < cost) cost = c;
  };
  for (const p of ps) if (p.attainment >= a) take(p.instanceMinutes);
  for (let i = 0; i + 1 < ps.length; i++) {
    const [p, q] = [ps[i]!, ps[i + 1]!];
    const lo = Math.min(p.attainment, q.attainment);
    const hi = Math.max(p.attainment, q.attainment);
    if (a < lo || a > hi || hi === lo) continue;
    const t = (a - p.attainment) / (q.attainment - p.attainment);
    take(p.instanceMinutes + t * (q.instanceMinutes - p.instanceMinutes));
  }
  return cost;
}

/**
 * The saving at equal SLO: (target tracking's cost at the policy's attainment - the policy's
 * cost) / target tracking's cost. 0.123: 12.3 % cheaper; negative: dearer. Null when no swept
 * target reaches the policy's attainment (target tracking cannot buy that SLO at any price).
 */
export function savingAtEqualSlo(
  points: readonly SweptPoint[],
  policy: { instanceMinutes: number; attainment: number },
): number | null {
  const tt = costAtAttainment(points, policy.attainment);
  if (tt === null || tt <= 0) return null;
  return (tt - policy.instanceMinutes) / tt;
}
