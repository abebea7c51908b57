/**
 * What the factor does to a target and to a decision: load targets scaled, latency untouched,
 * GPU percent capped, floors divided; and the sentence of each error-budget reason code, pinned
 * as the engine's own are (tests/engine/messages.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import type { SignalSnapshot } from '#shared/engine/types.ts';
import { SloControlSchema } from '#shared/policy/slo-schema.ts';
import { controlHeadroom } from '#shared/slo/control.ts';
import { annotateDecision, floorWithHeadroom, withHeadroom } from '#shared/slo/headroom.ts';
import { targetPolicy } from '../engine/harness.ts';
import { budget } from './support.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
// The engine tests' builder (tests/engine/harness.ts): a variant with scaling 1-50.
const target = targetPolicy({
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'gpuUtilization', target: 80 },
    { metric: 'p95LatencyMs', sloMs: 2000 },
  ],
  damping: { scaleOutBreaches: 1, scaleInBreaches: 1, scaleOutCooldownSeconds: 0, scaleInCooldownSeconds: 0 },
  panic: { enabled: false },
});

const status = budget;

describe('headroom on a target', () => {
  it('scales load targets, leaves the latency SLO, and caps GPU percent at 95', () => {
    const lean = withHeadroom(target, 1.3).signals.map((s) => ('target' in s ? s.target : s.sloMs));
    const tight = withHeadroom(target, 0.5).signals.map((s) => ('target' in s ? s.target : s.sloMs));
    expect(lean).toEqual([130, 95, 2000]);
    expect(tight).toEqual([50, 40, 2000]);
    expect(withHeadroom(target, 1)).toBe(target);
  });

  it.each([
    { capacity: 10, factor: 0.8, floor: 13 },
    { capacity: 10, factor: 1, floor: 10 },
    { capacity: 3, factor: 0.3, floor: 10 },
    { capacity: 12, factor: 1.2, floor: 10 },
  ])('a floor of $capacity under $factor is $floor', ({ capacity, factor, floor }) => {
    expect(floorWithHeadroom(capacity, factor)).toBe(floor);
  });
});

describe('a decision under the error budget', () => {
  const snapshot: SignalSnapshot = {
    capacity: { desired: 10, ready: 10 },
    readings: {
      invocationsPerInstance: { value: 110, timestamp: T0 - 60_000 },
      gpuUtilization: { value: 50, timestamp: T0 - 60_000 },
      p95LatencyMs: { value: 1500, timestamp: T0 - 60_000 },
    },
  };
  const C = SloControlSchema.parse({});

  it.each([
    {
      case: 'burning: the tighter target scales out and the sentence says why',
      // Paging: a full step, 0.03 x 3.
      s: status({ fastBurn: 10, pace: 1.1, pages: true }),
      bad: 2,
      factor: 0.91,
      reasons: ['ScaleOutBreach', 'BudgetBurning'],
      message:
        "Scale out from 10 to 13 instances: invocationsPerInstance at 110 is 1.21x its target of 91; the error budget burns 10.0x as fast as the objective allows over the fast window (0.0x over the slow one), so load targets stand at 0.91x of the policy's.",
    },
    {
      case: 'exhausted: the most headroom',
      s: status({ fastBurn: 0, pace: 1.5, remaining: 0 }),
      bad: 0,
      factor: 0.3,
      reasons: ['ScaleOutBreach', 'StepLimitUp', 'BudgetExhausted'],
      message:
        "Scale out from 10 to 20 instances: invocationsPerInstance at 110 is 3.67x its target of 30; step limited to +max(4, 100 %) per period; the error budget is spent, so load targets stand at 0.30x of the policy's, the most headroom it allows.",
    },
  ])('$case', ({ s, bad, factor, reasons, message }) => {
    const h = controlHeadroom(
      { factor: 1, lastLoosenAt: null, lastTightenAt: null },
      { status: s, newBad: bad, control: C, now: T0 },
    );
    expect(h.factor).toBeCloseTo(factor, 9);
    const policy = withHeadroom(target, h.factor);
    const result = annotateDecision(decide(undefined, snapshot, policy, T0), h, s, policy);
    expect([result.decision.reasons, result.decision.message]).toEqual([reasons, message]);
    expect(result.decision.headroom).toMatchObject({
      factor: h.factor,
      reason: h.reason,
      remaining: s.remaining,
    });
  });

  it('a spare budget adds its reason and says what is left', () => {
    const s = status({ fastBurn: 0, pace: 0.1, remaining: 0.9 });
    const h = controlHeadroom(
      { factor: 0.5, lastLoosenAt: null, lastTightenAt: null },
      { status: s, newBad: 0, control: C, now: T0 },
    );
    const policy = withHeadroom(target, h.factor);
    const d = annotateDecision(decide(undefined, snapshot, policy, T0), h, s, policy).decision;
    expect(d.reasons.at(-1)).toBe('BudgetSpare');
    expect(d.message).toContain(
      "the error budget is spare (90 % left, burning 0.0x), so load targets stand at 0.51x of the policy's",
    );
  });

  it('a spare room that narrowed adds its reason and says the targets are back', () => {
    // The factor stood in the spare room (1.3); a bad minute in the fast window shuts it.
    const s = status({
      fastBurn: 3.3,
      pace: 0.1,
      remaining: 0.95,
      window: { observed: 10 * 1440, bad: 5, requests: 0, badRequests: 0 },
    });
    const h = controlHeadroom(
      { factor: 1.3, lastLoosenAt: null, lastTightenAt: null },
      { status: s, newBad: 1, control: C, now: T0 },
    );
    expect([h.reason, h.factor]).toEqual(['SpareRoomClosed', 1]);
    const d = annotateDecision(decide(undefined, snapshot, target, T0), h, s, target).decision;
    expect(d.reasons.at(-1)).toBe('SpareRoomClosed');
    expect(d.message).toContain(
      "the error budget's spare room narrowed (a burn window burns, or the pace rose toward its limit), so load targets are back at 1.00x of the policy's",
    );
  });

  it('a steady budget leaves the reasons and sentence as decide() made them', () => {
    const s = status({ fastBurn: 0.5, pace: 0.9 });
    const h = controlHeadroom(undefined, { status: s, newBad: 0, control: C, now: T0 });
    const plain = decide(undefined, snapshot, target, T0);
    const d = annotateDecision(plain, h, s, target).decision;
    expect([d.reasons, d.message]).toEqual([plain.decision.reasons, plain.decision.message]);
    expect(d.headroom?.reason).toBe('BudgetSteady');
  });
});
