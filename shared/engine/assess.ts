/**
 * The first step of decide() (./decide.ts): the period's signals assessed one by one
 * (./signals.ts) and what they ask for together: the largest breaching proposal, whether every
 * signal is low and to what scale-in leads, whether data is missing, and whether a load is at
 * the panic threshold. Pure.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { activationIdle, assessSignals } from './signals.ts';
import type { SignalAssessment, SignalSnapshot } from './types.ts';

/** The period's signals and what they ask for together. */
export interface Assessed {
  signals: SignalAssessment[];
  anyPresent: boolean;
  anyMissing: boolean;
  /** The largest proposal of the breaching signals, and whether a load signal made it. */
  outProposal: number | null;
  outByLoad: boolean;
  /** Every signal fresh and below its band. */
  allLow: boolean;
  /** The scale-in recommendation when allLow: 0 only when the target may go to zero now. */
  inProposal: number | null;
  /** Going to zero waits for activation data that is missing. */
  zeroNeedsData: boolean;
  /** Some proportional signal is at or above the panic threshold. */
  atPanic: boolean;
}

export function assess(policy: TargetPolicy, snapshot: SignalSnapshot, now: number): Assessed {
  const signals = snapshot.capacity.desired > 0 ? assessSignals(policy, snapshot, now) : [];
  let present = 0;
  let allLow = signals.length > 0;
  let outProposal: number | null = null;
  let outByLoad = false;
  let loadProposal: number | null = null;
  let atPanic = false;
  for (const s of signals) {
    if (s.status !== 'missing') present++;
    if (s.status !== 'low') allLow = false;
    if (s.status === 'high' && s.proposal !== null && (outProposal === null || s.proposal >= outProposal)) {
      // On a tie a load signal names the reason: it is the one that tracks demand.
      outByLoad = s.kind === 'load' || (outByLoad && s.proposal === outProposal);
      outProposal = s.proposal;
    }
    if (s.kind !== 'load' || s.proposal === null) continue;
    if (loadProposal === null || s.proposal > loadProposal) loadProposal = s.proposal;
    if (policy.panic.enabled && s.ratio !== null && s.ratio >= policy.panic.threshold) atPanic = true;
  }
  // Activation is a total kept apart from the per-instance targets (as in KEDA): when it is
  // at or below its threshold there is no demand worth an instance, however the rounding falls.
  const idle = policy.scaling.scaleToZero ? activationIdle(policy, snapshot, now) : false;
  const inProposal = !allLow || loadProposal === null ? null : idle === true ? 0 : Math.max(1, loadProposal);
  return {
    signals,
    anyPresent: present > 0,
    anyMissing: present < signals.length,
    outProposal,
    outByLoad,
    allLow,
    inProposal,
    zeroNeedsData: allLow && idle === null && loadProposal === 0,
    atPanic,
  };
}
