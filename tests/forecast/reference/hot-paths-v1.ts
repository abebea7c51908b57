/**
 * The noise model's fit and sortedFinite as they were before the hot-path rewrite (commit
 * ac4d055), kept verbatim as the reference that tests/forecast/hot-paths.test.ts compares the
 * new code with bit for bit, and that bench/noise.bench.ts times it against. Not used by Governor.
 */
import type { NoiseModel } from '#shared/sizing/noise-model.ts';

const MAX_BINS = 6;
const MIN_PER_BIN = 10;
const MAD_TO_SD = 1.4826;

function median(sorted: readonly number[]): number {
  const n = sorted.length;
  return n === 0 ? Number.NaN : n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}
const sortedCopy = (xs: readonly number[]) => [...xs].sort((x, y) => x - y);

export function trailingMediansV1(demand: readonly number[], window: number): Float64Array {
  const out = new Float64Array(demand.length).fill(Number.NaN);
  const win: number[] = [];
  for (let i = 0; i < demand.length; i++) {
    if (win.length === window) out[i] = median(win);
    const x = demand[i]!;
    if (!Number.isFinite(x)) {
      win.length = 0;
      continue;
    }
    let at = 0;
    while (at < win.length && win[at]! < x) at++;
    win.splice(at, 0, x);
    if (win.length > window) {
      const old = demand[i - window]!;
      win.splice(win.indexOf(old), 1);
    }
  }
  return out;
}

export function fitNoiseV1(levels: ArrayLike<number>, actuals: ArrayLike<number>): NoiseModel | null {
  const pairs: [number, number][] = [];
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]!;
    const y = actuals[i]!;
    if (l > 0 && Number.isFinite(l) && Number.isFinite(y)) pairs.push([l, y - l]);
  }
  const bins = Math.min(MAX_BINS, Math.floor(pairs.length / MIN_PER_BIN));
  if (bins < 2) return null;
  pairs.sort((p, q) => p[0] - q[0]);
  const per = Math.floor(pairs.length / bins);
  const points: [number, number][] = [];
  for (let b = 0; b < bins; b++) {
    const bin = pairs.slice(b * per, b === bins - 1 ? pairs.length : (b + 1) * per);
    const residuals = sortedCopy(bin.map((p) => p[1]));
    const centre = median(residuals);
    const sd = MAD_TO_SD * median(sortedCopy(residuals.map((r) => Math.abs(r - centre))));
    points.push([median(bin.map((p) => p[0])), sd * sd]);
  }
  return { ...fitVariance(points), samples: pairs.length };
}

function fitVariance(points: readonly [number, number][]): { a: number; b: number } {
  let s11 = 0;
  let s12 = 0;
  let s22 = 0;
  let t1 = 0;
  let t2 = 0;
  for (const [l, v] of points) {
    const w = 1 / Math.max(v, 1e-9) ** 2;
    s11 += w * l * l;
    s12 += w * l * l * l;
    s22 += w * l ** 4;
    t1 += w * l * v;
    t2 += w * l * l * v;
  }
  const det = s11 * s22 - s12 * s12;
  const a = det > 0 ? (t1 * s22 - t2 * s12) / det : -1;
  const b = det > 0 ? (s11 * t2 - s12 * t1) / det : -1;
  if (a >= 0 && b >= 0) return { a, b };
  const aOnly = { a: Math.max(0, t1 / s11), b: 0 };
  const bOnly = { a: 0, b: Math.max(0, t2 / s22) };
  const err = (m: { a: number; b: number }) =>
    points.reduce((e, [l, v]) => e + ((v - m.a * l - m.b * l * l) / Math.max(v, 1e-9)) ** 2, 0);
  return err(aOnly) <= err(bOnly) ? aOnly : bOnly;
}

export function fitLevelNoiseV1(demand: readonly number[], levelMinutes: number): NoiseModel | null {
  return fitNoiseV1(trailingMediansV1(demand, levelMinutes), demand);
}

export function sortedFiniteV1(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) out[n++] = v;
  }
  return out.subarray(0, n).sort();
}
