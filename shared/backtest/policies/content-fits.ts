/**
 * Fits shared between runs that see the same demand: forecasts and noise models remembered by
 * what they were computed from (the delivered history's bytes, the options, the model
 * parameters), so any run that asks for the fit of an identical history gets the same object
 * instead of a refit. Both fits are pure functions of exactly these inputs, so sharing cannot
 * change a decision: a run with this memo is bit for bit the run without it
 * (tests/backtest/content-fits.test.ts).
 *
 * Where it pays: runs of one trace whose demand is the same while the scenario differs. In the
 * suite, the reference cell, cold-4, peak-10, peak-160 and delay-2 of a trace ask for the same
 * forecasts (their horizon and history coincide); every variant but the noise seeds asks for the
 * same noise fits. In the outage backtest, each strategy's primary region sees the same demand
 * until the outage. Position-keyed sharing (lookaheadMemo) is for runs of one trace only; this
 * one is keyed by content, so it is right whatever runs share it.
 *
 * Memory grows with the distinct fits asked for: hold one memo per trace (or per run) and drop
 * it with the trace. A NASA July run asks for about 430 forecasts and 660 noise fits.
 */
import { createHash } from 'node:crypto';
import { forecast } from '../../forecast/forecast.ts';
import { fitLevelNoise, type NoiseModel } from '../../sizing/noise-model.ts';
import type { DeliveredWindow } from './delivered-window.ts';
import type { LookaheadFits } from './lookahead.ts';

/** The bytes of a history: 8 per value, NaN and missing values as NaN. */
function historyDigest(history: DeliveredWindow): string {
  const values = new Float64Array(history.length);
  for (let i = 0; i < values.length; i++) values[i] = history.at(i) ?? Number.NaN;
  return createHash('sha256').update(new Uint8Array(values.buffer)).digest('base64');
}

export interface ContentFits extends LookaheadFits {
  /** Fits asked for so far, and how many of them were computed (the rest were shared). */
  readonly stats: { forecasts: number; forecastsFitted: number; noises: number; noisesFitted: number };
}

export function contentFits(): ContentFits {
  const forecasts = new Map<string, ReturnType<typeof forecast>>();
  const noises = new Map<string, NoiseModel | null>();
  const stats = { forecasts: 0, forecastsFitted: 0, noises: 0, noisesFitted: 0 };
  return {
    stats,
    forecast: (history, options, params) => {
      stats.forecasts++;
      const key = `${historyDigest(history)}|${JSON.stringify(options)}|${JSON.stringify(params ?? null)}`;
      let fit = forecasts.get(key);
      if (fit === undefined) {
        fit = forecast(history.values(), options, params);
        forecasts.set(key, fit);
        stats.forecastsFitted++;
      }
      return fit;
    },
    levelNoise: (history, levelMinutes, levels) => {
      stats.noises++;
      const key = `${historyDigest(history)}|${levelMinutes}`;
      if (!noises.has(key)) {
        noises.set(key, fitLevelNoise(history.values(), levelMinutes, levels?.()));
        stats.noisesFitted++;
      }
      return noises.get(key)!;
    },
  };
}
