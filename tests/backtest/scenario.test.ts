import { describe, expect, it } from 'vitest';
import { mulberry32, poisson, withPoissonNoise } from '#shared/backtest/noise.ts';
import { buildScenario, buildWorkload, DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { type Trace, TraceError } from '#shared/backtest/trace.ts';

const trace = (requests: number[], input: number[] | null = null, output: number[] | null = null): Trace => ({
  name: 't',
  resolution: 'minute',
  requests,
  inputTokens: input,
  outputTokens: output,
});

describe('the reference scenario', () => {
  it('derives mu, muSat, the bounds and k from the trace and the policy', () => {
    // Peak 600 with 40 at peak: mu = 15, muSat = 18.75; the policy's 120 a minute gives k = 8.
    const s = buildScenario({ requests: [300, 600], work: [300, 600] }, DEFAULT_SCENARIO, 120);
    expect(s).toMatchObject({ mu: 15, muSat: 18.75, minCapacity: 1, maxCapacity: 80, policyUnitScale: 8 });
  });

  it('leaves request signals in trace units when the policy has no instanceCapacity (k = 1)', () => {
    expect(buildScenario({ requests: [5], work: [5] }, DEFAULT_SCENARIO, undefined).policyUnitScale).toBe(1);
  });
});

describe('Poisson noise (off by default)', () => {
  it('is the same for one seed and different for another', () => {
    const counts = Array.from({ length: 200 }, () => 50);
    expect(withPoissonNoise(counts, 7)).toEqual(withPoissonNoise(counts, 7));
    expect(withPoissonNoise(counts, 7)).not.toEqual(withPoissonNoise(counts, 8));
  });

  it.each([
    // Sum of 1000 draws of mean 100: sd sqrt(100000) = 316, so +-1.5 % is 4.7 sd.
    {
      case: 'large means (normal approximation) keep the total within 1.5 %',
      mean: 100,
      draws: 1000,
      slack: 0.015,
    },
    // 5000 draws of mean 2: sd of the mean 0.02, so +-5 % is 5 sd.
    { case: 'small means (exact draws) keep the average within 5 %', mean: 2, draws: 5000, slack: 0.05 },
  ])('$case', ({ mean, draws, slack }) => {
    const random = mulberry32(1);
    let total = 0;
    for (let i = 0; i < draws; i++) total += poisson(mean, random);
    expect(Math.abs(total / (mean * draws) - 1)).toBeLessThan(slack);
  });

  it('is off unless a seed is given: the workload is the trace', () => {
    expect(buildWorkload(trace([3, 4]), DEFAULT_SCENARIO).requests).toEqual([3, 4]);
    expect(buildWorkload(trace([300, 400]), { ...DEFAULT_SCENARIO, noiseSeed: 3 }).requests).not.toEqual([
      300, 400,
    ]);
  });
});

describe('token-aware work (off by default)', () => {
  it('weighs each minute by its tokens, rescaled to the total of requests', () => {
    // Tokens 100 + 5 x 0 = 100 and 300 + 5 x 0 = 300; 2 requests over 400 tokens: [0.5, 1.5].
    const w = buildWorkload(trace([1, 1], [100, 300], [0, 0]), { ...DEFAULT_SCENARIO, outputTokenWeight: 5 });
    expect(w.work).toEqual([0.5, 1.5]);
    expect(w.requests).toEqual([1, 1]);
  });

  it('counts an output token as outputTokenWeight input tokens', () => {
    // 10 + 2 x 10 = 30 and 30 + 2 x 0 = 30: equal work though the inputs differ threefold.
    const w = buildWorkload(trace([1, 1], [10, 30], [10, 0]), { ...DEFAULT_SCENARIO, outputTokenWeight: 2 });
    expect(w.work).toEqual([1, 1]);
  });

  it('refuses a trace without token columns', () => {
    expect(() => buildWorkload(trace([1, 2]), { ...DEFAULT_SCENARIO, outputTokenWeight: 5 })).toThrow(
      TraceError,
    );
  });
});
