/**
 * What `governor pause`, `resume` and `release` write to the kill switch, and the line each
 * prints. The values are the kill switch's own (shared/invocation/kill-switch.ts). Pure.
 */
import { judgeKillSwitch, KILL_SWITCH_VALUES } from '../invocation/kill-switch.ts';

export type SwitchAction = keyof typeof KILL_SWITCH_VALUES;

const EFFECT: Record<SwitchAction, string> = {
  pause:
    'Governor changes nothing from its next evaluation (within a minute); what it suspended stays suspended. governor resume hands control back to Governor, governor release to the scalers it suspended',
  resume: 'Governor acts again from its next evaluation (within a minute)',
  release:
    'Governor changes nothing from its next evaluation (within a minute), and that evaluation resumes every scaler it suspended (Application Auto Scaling policies, the AlarmNotification process of groups); governor decisions shows each one resumed',
};

/** How the switch read before the write, in the switch's own words. */
export function describeSwitch(value: string | null): string {
  if (value === null) return 'missing (counts as on)';
  const judged = judgeKillSwitch({ value });
  return judged.reason === 'Unrecognised'
    ? `${JSON.stringify(value)} (counts as on)`
    : value.trim().toLowerCase();
}

/** `kill switch /governor/kill-switch: off -> release: Governor ...`, or the same value again. */
export function switchLine(action: SwitchAction, parameter: string, before: string | null): string {
  const after = KILL_SWITCH_VALUES[action];
  const was = describeSwitch(before);
  const change = before === after ? `already ${after}` : `${was} -> ${after}`;
  return `kill switch ${parameter}: ${change}: ${EFFECT[action]}`;
}
