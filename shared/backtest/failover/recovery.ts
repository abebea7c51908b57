/**
 * Recovery time: minutes from the outage's first minute s to the first minute t >= s from which
 * at least RECOVERY_SHARE of the requests are served within the SLO in every one of the next
 * RECOVERY_HOLD_MINUTES minutes (t .. t + 9), those minutes all inside the trace. 0 when service
 * never dropped below the share; null when no such minute exists (not recovered in the trace).
 *
 * Served within the SLO: the requests of a minute that went to a region whose minute did not
 * violate (backlog included), over all the minute's requests (simulate.ts). Pinned on
 * hand-computed cases in tests/backtest/failover-recovery.test.ts.
 */
export const RECOVERY_SHARE = 0.95;
export const RECOVERY_HOLD_MINUTES = 10;

export function recoveryMinutes(served: ArrayLike<number>, start: number): number | null {
  let run = 0;
  for (let t = start; t < served.length; t++) {
    run = served[t]! >= RECOVERY_SHARE - 1e-12 ? run + 1 : 0;
    if (run === RECOVERY_HOLD_MINUTES) return t - RECOVERY_HOLD_MINUTES + 1 - start;
  }
  return null;
}
