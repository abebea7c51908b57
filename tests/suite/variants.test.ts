import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { selectVariants, VARIANTS } from '#shared/suite/variants.ts';

describe('the suite variants (BACKTEST.md "Scenario variants")', () => {
  it('are the reference scenario and one knob moved at a time: cold start 4 and 15, peak 10 and 160, delay 2, noise seeds 1-5', () => {
    expect(VARIANTS.map((v) => v.id)).toEqual([
      'reference',
      'cold-4',
      'cold-15',
      'peak-10',
      'peak-160',
      'delay-2',
      'noise-1',
      'noise-2',
      'noise-3',
      'noise-4',
      'noise-5',
    ]);
    expect(VARIANTS[0]!.options).toEqual({});
    for (const v of VARIANTS.slice(1)) {
      const moved = Object.entries(v.options);
      expect(moved).toHaveLength(1);
      const [key, value] = moved[0]!;
      expect(value).not.toBe(DEFAULT_SCENARIO[key as keyof typeof DEFAULT_SCENARIO]);
    }
  });

  it('selects by id in the order asked, every one when none are named', () => {
    expect(selectVariants(['peak-10', 'reference']).map((v) => v.id)).toEqual(['peak-10', 'reference']);
    expect(selectVariants([])).toHaveLength(VARIANTS.length);
  });

  it('refuses an unknown id, naming the ones that exist', () => {
    expect(() => selectVariants(['cold-5'])).toThrow(
      /unknown variant "cold-5"; the variants are reference, cold-4/,
    );
  });
});
