/**
 * The kill switch's one meaning, used by every component that acts: the evaluate function, the
 * forecast function, and (through the value the evaluator judged) the scale-target state machine.
 *
 *   the value, trimmed and lower-cased, is "off"  -> off: changes may go through
 *   "on"                                            -> on: pause, nothing is changed
 *   "release"                                       -> on, and the evaluator hands control back:
 *                                                     it resumes every scaler it suspended
 *                                                     (functions/evaluate/release.ts), then acts no more
 *   anything else (" maybe", "")                    -> on
 *   the parameter does not exist                   -> on
 *   the parameter cannot be read (denied, throttled, timed out) -> on
 *
 * Only "off" lets a change through: a typo, a missing parameter or a broken read stops Governor
 * instead of letting it run. The template creates the parameter with "off".
 *
 * The state machine cannot trim or lower-case in JSONPath. The evaluator passes the raw value it
 * judged off in the execution input (killSwitchValue), and the state machine, just before it
 * sends the change, goes on only while the parameter still holds exactly that value: a change
 * of the value since the decision, to whatever value, stops the change (the next evaluation
 * reads the switch again and decides). It compares values, not versions: turned on and back to
 * the very same string before the check, the switch lets the change through, as it then says off. So no component lets a change through on a value this
 * function calls on (pinned by tests/statemachines/kill-switch.test.ts).
 */
import { clip, clipJson } from '../events/bounded.ts';

export const KILL_SWITCH_OFF = 'off';
/** Pause: Governor stops acting; what it suspended stays suspended (`governor pause`). */
export const KILL_SWITCH_ON = 'on';
/** Hand back: Governor stops acting and resumes the scalers it suspended (`governor release`). */
export const KILL_SWITCH_RELEASE = 'release';

/** The values `governor pause`, `resume` and `release` write, the only ones with a meaning. */
export const KILL_SWITCH_VALUES = {
  pause: KILL_SWITCH_ON,
  resume: KILL_SWITCH_OFF,
  release: KILL_SWITCH_RELEASE,
} as const;

/** What reading the parameter gave: its value, null when it does not exist, or the read's error. */
export type KillSwitchRead = { value: string | null } | { error: string };

export type KillSwitchReason = 'Off' | 'On' | 'Release' | 'Missing' | 'Unreadable' | 'Unrecognised';

export interface KillSwitch {
  on: boolean;
  reason: KillSwitchReason;
  /** The raw value read (null when missing or unreadable): what the state machine compares. */
  value: string | null;
  /** One sentence for the log. */
  message: string;
}

/** The switch's meaning from one read (pure; table-tested in tests/control/kill-switch.test.ts). */
export function judgeKillSwitch(read: KillSwitchRead): KillSwitch {
  if ('error' in read) {
    return {
      on: true,
      reason: 'Unreadable',
      value: null,
      message: `the kill switch cannot be read (${clip(read.error)}): it counts as on, nothing is changed`,
    };
  }
  if (read.value === null) {
    return {
      on: true,
      reason: 'Missing',
      value: null,
      message: 'the kill switch parameter does not exist: it counts as on, nothing is changed',
    };
  }
  const normal = read.value.trim().toLowerCase();
  if (normal === KILL_SWITCH_OFF)
    return { on: false, reason: 'Off', value: read.value, message: 'the kill switch is off' };
  if (normal === KILL_SWITCH_RELEASE)
    return {
      on: true,
      reason: 'Release',
      value: read.value,
      message:
        'the kill switch says release: Governor resumes the scalers it suspended and changes nothing else',
    };
  if (normal === KILL_SWITCH_ON)
    return {
      on: true,
      reason: 'On',
      value: read.value,
      message: 'the kill switch is on: nothing is changed',
    };
  return {
    on: true,
    reason: 'Unrecognised',
    value: read.value,
    message: `the kill switch reads ${clipJson(read.value, 40)}, which is not "off": it counts as on, nothing is changed`,
  };
}

/** Reads the parameter through `get` (null: missing) and judges it; never throws. */
export async function readKillSwitch(get: (name: string) => Promise<string | null>, name: string) {
  try {
    return judgeKillSwitch({ value: await get(name) });
  } catch (error) {
    return judgeKillSwitch({
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
}
