/**
 * The backtest's measured lead time: the governor policy times its own scale-outs in the
 * simulated fleet, from the minute it asked for capacity to the minute the ready count reached
 * it, as the evaluator does in AWS with live capacity (shared/floors/lead-time.ts turns the
 * samples into the lead the floor covers). So a 15-minute cold start is learned from the fleet,
 * not read from the scenario.
 */
import { addLeadSample, type LeadSample } from '../../floors/lead-time.ts';

interface Open {
  /** Epoch ms the scale-out was asked for. */
  at: number;
  /** The capacity it asked for. */
  to: number;
}

export class ScaleOutClock {
  #open: Open[] = [];
  #samples: LeadSample[] = [];

  /** The newest samples, oldest first (at most LEAD_MAX_SAMPLES). */
  get samples(): readonly LeadSample[] {
    return this.#samples;
  }

  /**
   * Each minute, before deciding: scale-outs whose capacity is now all ready are timed. True when
   * the samples' durations changed (their count, or the minutes one took): the measured lead
   * (effectiveLead) reads nothing else, so it is recomputed only then. In the simulator most
   * scale-outs take the same cold start, and with the newest LEAD_MAX_SAMPLES kept, a new one
   * usually replaces one that took as long.
   */
  observe(ready: number, now: number): boolean {
    // Most minutes nothing is served: nothing is built for them (a plain loop, not a closure).
    let any = false;
    for (const o of this.#open) if (o.to <= ready) any = true;
    if (!any) return false;
    const served = this.#open.filter((o) => o.to <= ready);
    this.#open = this.#open.filter((o) => o.to > ready);
    const before = this.#samples;
    for (const o of served)
      this.#samples = addLeadSample(this.#samples, { requestedAt: o.at, servingAt: now });
    return !sameDurations(before, this.#samples);
  }

  /** After deciding: a scale-out opens a timing; a scale-in drops the ones it undid (they never serve). */
  decided(current: number, desired: number, now: number): void {
    if (desired > current) this.#open.push({ at: now, to: desired });
    else if (desired < current) this.#open = this.#open.filter((o) => o.to <= desired);
  }
}

const durations = (samples: readonly LeadSample[]): number[] =>
  samples.map((s) => s.servingAt - s.requestedAt).sort((a, b) => a - b);

/** Whether two sample lists hold the same durations, whatever their order. */
function sameDurations(a: readonly LeadSample[], b: readonly LeadSample[]): boolean {
  if (a.length !== b.length) return false;
  const x = durations(a);
  const y = durations(b);
  return x.every((d, i) => d === y[i]);
}
