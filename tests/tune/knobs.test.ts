import { describe, expect, it } from 'vitest';
import { SloControlSchema, SloSchema } from '#shared/policy/slo-schema.ts';
import { applyKnobs, knobsFor, startValue } from '#shared/tune/knobs.ts';
import { exampleTarget } from './fixtures.ts';

const { target, raw } = exampleTarget();
const knobs = knobsFor(target);
const named = (name: string) => knobs.find((k) => k.name === name)!;

describe('knobsFor: the parameters the issue names, as the target can use them', () => {
  it('offers headroom, band, breach counts, windows, cooldowns, panic, forecast and noise knobs for the example', () => {
    expect(knobs.map((k) => k.name)).toEqual([
      'target',
      'tolerance',
      'scaleOutBreaches',
      'scaleInBreaches',
      'scaleInStabilizationSeconds',
      'scaleInCooldownSeconds',
      'scaleOutCooldownSeconds',
      'panicThreshold',
      'panicStableWindowSeconds',
      'forecastQuantile',
      'forecastRequestsPerInstance',
      'floorSigmas',
      'bandSigmas',
      'minTargetFactor',
      'maxTargetFactor',
      'freshStepShare',
    ]);
  });

  it('offers the error-budget control\u2019s bounds, falling back to the schema\u2019s defaults', () => {
    const defaults = SloControlSchema.parse({});
    expect(named('minTargetFactor')).toMatchObject({
      path: ['slo', 'control', 'minTargetFactor'],
      fallback: defaults.minTargetFactor,
    });
    expect(named('maxTargetFactor').values).toContain(defaults.maxTargetFactor);
    expect(named('freshStepShare')).toMatchObject({
      path: ['slo', 'control', 'freshStepShare'],
      values: [0.2, 0.3, 0.4, 0.6, 1],
      fallback: defaults.freshStepShare,
    });
    const written = knobsFor({ ...target, slo: SloSchema.parse({ control: { minTargetFactor: 0.65 } }) });
    expect(written.find((k) => k.name === 'minTargetFactor')!.values).toEqual([
      0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.8,
    ]);
    const off = knobsFor({ ...target, slo: SloSchema.parse({ control: { enabled: false } }) });
    expect(off.map((k) => k.name)).not.toContain('minTargetFactor');
  });

  it('scales headroom to the instance capacity (120 at the SLO: 60 to 102) and includes the example\u2019s own 75', () => {
    expect(named('target').values).toEqual([60, 66, 72, 75, 78, 84, 90, 96, 102]);
    expect(named('forecastRequestsPerInstance').values).toContain(75);
  });

  it('has the starting policy\u2019s value of every knob among its values', () => {
    for (const k of knobs) expect(k.values, k.name).toContain(startValue(target, k));
  });

  it('offers no forecast or noise knobs to a target without those sections, and a standby knob with a warm pool', () => {
    const bare = knobsFor({ ...target, forecast: undefined, noise: undefined }).map((k) => k.name);
    expect(bare).not.toContain('forecastQuantile');
    expect(bare).not.toContain('floorSigmas');
    const standby = knobsFor({
      ...target,
      warmPool: { enabled: true, minSize: 0, maxSize: 2, warmStartMinutes: 1, idleCostFraction: 0.05 },
    });
    expect(standby.map((k) => k.name)).toContain('standby');
  });
});

describe('applyKnobs', () => {
  it('sets each path in a copy, creating sections the file left to defaults', () => {
    const raw2 = structuredClone(raw);
    delete raw2.panic;
    const out = applyKnobs(
      raw2,
      new Map<string, number | string>([
        ['target', 90],
        ['panicThreshold', 3],
      ]),
      knobs,
    );
    expect((out.signals as { target: number }[])[0]!.target).toBe(90);
    expect(out.panic).toEqual({ threshold: 3 });
    expect((raw2.signals as { target: number }[])[0]!.target).toBe(75);
  });

  it('keeps scale-in at least as patient as scale-out (a cross-field rule)', () => {
    const out = applyKnobs(
      raw,
      new Map([
        ['scaleOutBreaches', 5],
        ['scaleInBreaches', 3],
      ]),
      knobs,
    );
    expect(out.damping).toMatchObject({ scaleOutBreaches: 5, scaleInBreaches: 5 });
  });
});
