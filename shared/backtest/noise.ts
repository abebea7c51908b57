/**
 * Seeded Poisson noise for the trace (an option beyond the reference scenario): each minute's
 * count becomes a Poisson draw with the trace's count as its mean, so two runs with one seed
 * agree to the request and different seeds show how much of a result is luck.
 */

/** mulberry32: a small, fast 32-bit generator; plenty for noise, not for cryptography. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Below this mean, Knuth's product method; above, the normal approximation (error < 1 %). */
const EXACT_BELOW = 30;

export function poisson(mean: number, random: () => number): number {
  if (mean <= 0) return 0;
  if (mean < EXACT_BELOW) {
    const limit = Math.exp(-mean);
    let k = 0;
    let p = random();
    while (p > limit) {
      k++;
      p *= random();
    }
    return k;
  }
  // Box-Muller; 1 - u keeps the logarithm finite.
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
}

export function withPoissonNoise(counts: readonly number[], seed: number): number[] {
  const random = mulberry32(seed);
  return counts.map((c) => poisson(c, random));
}
