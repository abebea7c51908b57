/**
 * The kill switch's one meaning (shared/invocation/kill-switch.ts), used by the evaluate function,
 * the forecast function and, through the value the evaluator judged, the state machine: only
 * "off", trimmed and in any letter case, lets a change through; anything else, a missing
 * parameter or an unreadable one, counts as on.
 */
import { describe, expect, it } from 'vitest';
import { judgeKillSwitch, readKillSwitch } from '#shared/invocation/kill-switch.ts';

describe('judgeKillSwitch', () => {
  it.each([
    { case: '"off"', read: { value: 'off' }, on: false, reason: 'Off' },
    { case: '" off" (a leading space)', read: { value: ' off' }, on: false, reason: 'Off' },
    { case: '"OFF\\n" (capitals, a trailing newline)', read: { value: 'OFF\n' }, on: false, reason: 'Off' },
    { case: '"Off\\t"', read: { value: 'Off\t' }, on: false, reason: 'Off' },
    { case: '"on"', read: { value: 'on' }, on: true, reason: 'On' },
    { case: '" on" (a leading space)', read: { value: ' on' }, on: true, reason: 'On' },
    { case: '"on\\n" (a trailing newline)', read: { value: 'on\n' }, on: true, reason: 'On' },
    { case: '"ON " (capitals, a trailing space)', read: { value: 'ON ' }, on: true, reason: 'On' },
    { case: '"release"', read: { value: 'release' }, on: true, reason: 'Release' },
    {
      case: '"Release\\n" (a capital, a trailing newline)',
      read: { value: 'Release\n' },
      on: true,
      reason: 'Release',
    },
    { case: '"releas" (a typo)', read: { value: 'releas' }, on: true, reason: 'Unrecognised' },
    { case: '"of" (a typo)', read: { value: 'of' }, on: true, reason: 'Unrecognised' },
    { case: '"o ff" (a space inside)', read: { value: 'o ff' }, on: true, reason: 'Unrecognised' },
    { case: 'an empty value', read: { value: '' }, on: true, reason: 'Unrecognised' },
    { case: 'a missing parameter', read: { value: null }, on: true, reason: 'Missing' },
    {
      case: 'an unreadable parameter',
      read: { error: 'AccessDeniedException: no' },
      on: true,
      reason: 'Unreadable',
    },
  ])('$case: on $on ($reason)', ({ read, on, reason }) => {
    const judged = judgeKillSwitch(read);
    expect(judged).toMatchObject({ on, reason });
    // The raw value travels to the state machine only as it was read.
    expect(judged.value).toBe('value' in read ? read.value : null);
  });

  it('says in one sentence why an unrecognised value stops everything, the value quoted and clipped', () => {
    expect(judgeKillSwitch({ value: 'maybe' }).message).toBe(
      'the kill switch reads "maybe", which is not "off": it counts as on, nothing is changed',
    );
    expect(judgeKillSwitch({ value: 'x'.repeat(5000) }).message.length).toBeLessThan(200);
  });
});

describe('readKillSwitch', () => {
  it.each([
    {
      case: 'a read that throws counts as on',
      get: async () => Promise.reject(new Error('timeout')),
      reason: 'Unreadable',
    },
    { case: 'a missing parameter counts as on', get: async () => null, reason: 'Missing' },
    { case: '"off" lets changes through', get: async () => 'off', reason: 'Off' },
  ])('$case', async ({ get, reason }) => {
    expect((await readKillSwitch(get, '/governor/kill-switch')).reason).toBe(reason);
  });
});
