import { describe, expect, it } from 'vitest';
import { parsePolicyText } from '#shared/policy/load.ts';
import { knobsFor, readKnob } from '#shared/tune/knobs.ts';
import { tunedPolicyText } from '#shared/tune/policy-file.ts';
import { EXAMPLE_TEXT, exampleTarget } from './fixtures.ts';

const { target } = exampleTarget();
const knobs = knobsFor(target);
const start = new Map(knobs.map((k) => [k.name, readKnob(target, k)!]));
const tuned = new Map(start).set('target', 90).set('scaleInBreaches', 10).set('forecastQuantile', 'p90');
const file = tunedPolicyText(EXAMPLE_TEXT, 0, knobs, start, tuned, [
  'Tuned by governor tune on history.csv.',
  'Held-out: tuned 1.63x.',
]);

describe('the tuned policy file', () => {
  it('passes governor validate with the tuned values', () => {
    const parsed = parsePolicyText(file.text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const t = parsed.policy.targets[0]!;
    expect((t.signals[0] as { target: number }).target).toBe(90);
    expect(t.damping.scaleInBreaches).toBe(10);
    expect(t.forecast?.quantile).toBe('p90');
  });

  it('says what it was tuned on first, then keeps the operator\u2019s comments', () => {
    expect(file.text.startsWith('# Tuned by governor tune on history.csv.\n# Held-out: tuned 1.63x.\n')).toBe(
      true,
    );
    expect(file.text).toContain('# From a load test: one ml.g5.2xlarge serves 120 requests a minute');
  });

  it('marks each changed field with what it was, and lists the changes', () => {
    expect(file.text).toMatch(/target: 90 # tuned \(was 75\)/);
    expect(file.text).toMatch(/scaleInBreaches: 10 # tuned \(was 6\)/);
    expect(file.changes).toEqual([
      ['target', 75, 90],
      ['scaleInBreaches', 6, 10],
      ['forecastQuantile', 'p50', 'p90'],
    ]);
  });

  it('writes a field the file left to its default, and says it was the default', () => {
    const withDefault = new Map(start).set('panicStableWindowSeconds', 300);
    const text = EXAMPLE_TEXT.replace(/ {6}stableWindowSeconds: 60\n/, '');
    const parsed = parsePolicyText(text);
    if (!parsed.ok) throw new Error('fixture');
    const s2 = new Map(knobs.map((k) => [k.name, readKnob(parsed.policy.targets[0], k)!]));
    const out = tunedPolicyText(text, 0, knobs, s2, withDefault, ['x']);
    expect(out.text).toMatch(/stableWindowSeconds: 300 # tuned \(was 600\)/);
  });

  it('writes the breach counts the candidate ran with: scale-in raised to scale-out, so it validates', () => {
    const crossed = new Map(start).set('scaleOutBreaches', 4).set('scaleInBreaches', 3);
    const out = tunedPolicyText(EXAMPLE_TEXT, 0, knobs, start, crossed, ['x']);
    const parsed = parsePolicyText(out.text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect([
      parsed.policy.targets[0]!.damping.scaleOutBreaches,
      parsed.policy.targets[0]!.damping.scaleInBreaches,
    ]).toEqual([4, 4]);
  });
});
