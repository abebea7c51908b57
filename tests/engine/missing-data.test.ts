/**
 * Missing and stale data: a signal whose newest datapoint is older than staleAfterSeconds (or
 * absent, negative or not a number) is missing. Missing data never scales in; the other
 * signals may still scale out; with every signal missing the decision holds with NoData.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '#shared/engine/decide.ts';
import type { SignalSnapshot } from '#shared/engine/types.ts';
import {
  at,
  runTimeline,
  type SnapshotSpec,
  snapshot,
  type Tick,
  targetPolicy,
  UNDAMPED,
} from './harness.ts';

const policy = targetPolicy({
  signals: [
    { metric: 'invocationsPerInstance', target: 100 },
    { metric: 'gpuUtilization', target: 70, staleAfterSeconds: 300 },
  ],
  damping: UNDAMPED,
  panic: { enabled: false },
});

const decideOne = (snap: SignalSnapshot) => decide(undefined, snap, policy, at(0)).decision;

describe('missing and stale signals (invocations stale after 180 s, GPU after 300 s)', () => {
  it.each<{ case: string; spec: Omit<SnapshotSpec, 'now' | 'desired'>; expected: unknown[] }>([
    {
      case: 'no readings at all holds with NoData',
      spec: { values: {} },
      expected: [10, ['NoData']],
    },
    {
      case: 'every reading stale holds with NoData, even far below target',
      spec: { values: { invocationsPerInstance: 1, gpuUtilization: 1 }, ageSeconds: 400 },
      expected: [10, ['NoData']],
    },
    {
      case: 'every reading stale holds with NoData, even far above target',
      spec: { values: { invocationsPerInstance: 900, gpuUtilization: 300 }, ageSeconds: 400 },
      expected: [10, ['NoData']],
    },
    {
      case: 'a reading exactly 180 s old is still fresh',
      spec: { values: { invocationsPerInstance: 150, gpuUtilization: null }, ageSeconds: 180 },
      expected: [15, ['ScaleOutBreach', 'PartialData']],
    },
    {
      case: 'a reading 181 s old is stale',
      spec: { values: { invocationsPerInstance: 150, gpuUtilization: null }, ageSeconds: 181 },
      expected: [10, ['NoData']],
    },
    {
      case: 'each signal has its own staleness limit: GPU 240 s old is fresh, invocations are not',
      spec: { values: { invocationsPerInstance: 150, gpuUtilization: 140 }, ageSeconds: 240 },
      expected: [20, ['ScaleOutBreach', 'PartialData']],
    },
    {
      case: 'a fresh signal may scale out while another is missing',
      spec: { values: { invocationsPerInstance: 150, gpuUtilization: null } },
      expected: [15, ['ScaleOutBreach', 'PartialData']],
    },
    {
      case: 'a fresh signal below target never scales in while another is missing',
      spec: { values: { invocationsPerInstance: 20, gpuUtilization: null } },
      expected: [10, ['ScaleInBlockedByMissingData', 'PartialData']],
    },
    {
      case: 'a stale signal is as good as missing for scale-in',
      spec: { values: { invocationsPerInstance: 20, gpuUtilization: 10 }, ages: { gpuUtilization: 301 } },
      expected: [10, ['ScaleInBlockedByMissingData', 'PartialData']],
    },
    {
      case: 'a fresh signal in band with another missing holds and names the gap',
      spec: { values: { invocationsPerInstance: 100, gpuUtilization: null } },
      expected: [10, ['WithinBand', 'PartialData']],
    },
    {
      case: 'a negative value is read as missing, not as zero load',
      spec: { values: { invocationsPerInstance: 20, gpuUtilization: -1 } },
      expected: [10, ['ScaleInBlockedByMissingData', 'PartialData']],
    },
    {
      case: 'a value that is not a number is read as missing',
      spec: { values: { invocationsPerInstance: 20, gpuUtilization: Number.NaN } },
      expected: [10, ['ScaleInBlockedByMissingData', 'PartialData']],
    },
    {
      case: 'an infinite value is read as missing',
      spec: { values: { invocationsPerInstance: Number.POSITIVE_INFINITY, gpuUtilization: null } },
      expected: [10, ['NoData']],
    },
  ])('$case', ({ spec, expected }) => {
    const d = decideOne(snapshot({ now: at(0), desired: 10, ...spec }));
    expect([d.desiredCapacity, d.reasons]).toEqual(expected);
  });

  it('a missing signal is reported with its age, and no value, ratio or proposal', () => {
    const d = decideOne(
      snapshot({
        now: at(0),
        desired: 10,
        values: { invocationsPerInstance: 100, gpuUtilization: 50 },
        ages: { gpuUtilization: 600 },
      }),
    );
    expect(d.signals[1]).toEqual({
      metric: 'gpuUtilization',
      kind: 'load',
      status: 'missing',
      value: null,
      target: 70,
      ratio: null,
      proposal: null,
      ageSeconds: 600,
    });
  });

  it('all data missing still applies the operator bounds (below minCapacity rises to it)', () => {
    const p = targetPolicy({ scaling: { minCapacity: 3, maxCapacity: 10 } });
    const d = decide(undefined, snapshot({ now: at(0), desired: 1, values: {} }), p, at(0)).decision;
    expect([d.desiredCapacity, d.reasons]).toEqual([3, ['NoData', 'ClampedToMin']]);
  });
});

describe('missing data over time (M = 3)', () => {
  const damped = targetPolicy({
    signals: [
      { metric: 'invocationsPerInstance', target: 100 },
      { metric: 'gpuUtilization', target: 70 },
    ],
    damping: { ...UNDAMPED, scaleInBreaches: 3 },
    panic: { enabled: false },
  });
  const LOW = { invocationsPerInstance: 20, gpuUtilization: 10 };
  const GAP = { invocationsPerInstance: 20, gpuUtilization: null };
  it.each<{ case: string; ticks: Tick[] }>([
    {
      case: 'a gap in one signal restarts the scale-in count',
      ticks: [
        { t: 0, values: LOW, expect: [10, ['ScaleInAwaitingBreaches']] },
        { t: 1, values: LOW, expect: [10, ['ScaleInAwaitingBreaches']] },
        { t: 2, values: GAP, expect: [10, ['ScaleInBlockedByMissingData', 'PartialData']] },
        { t: 3, values: LOW, expect: [10, ['ScaleInAwaitingBreaches']] },
        { t: 4, values: LOW, expect: [10, ['ScaleInAwaitingBreaches']] },
        { t: 5, values: LOW, expect: [2, ['ScaleInBreach']] },
      ],
    },
    {
      case: 'minutes with no data at all never count toward a scale-in',
      ticks: [
        { t: 0, values: LOW, expect: [10, ['ScaleInAwaitingBreaches']] },
        { t: 1, values: {}, expect: [10, ['NoData']] },
        { t: 2, values: LOW, expect: [10, ['ScaleInAwaitingBreaches']] },
      ],
    },
  ])('$case', ({ ticks }) => {
    expect(runTimeline(damped, 10, ticks).outcomes).toEqual(ticks.map((t) => t.expect));
  });
});
