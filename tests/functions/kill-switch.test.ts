/**
 * The kill switch in the evaluate function: its one meaning (shared/invocation/kill-switch.ts),
 * replayed through the real adapters. Every value that is not "off" once trimmed and
 * lower-cased, a missing parameter and an unreadable one stop every action: no claim of a
 * change, no execution started. An "off" in any spelling lets the change through, and the
 * execution carries the raw value the state machine checks again before it sends the change.
 */
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { CONFIG, eventFile, harness, REPLAY_POLICY } from './harness.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const STORM = { InvocationsPerInstance: 250, GPUUtilization: 95, ModelLatency: 1_500_000 };
const tick = eventFile('scheduler-tick');

type Switch = { value: string } | 'missing' | 'unreadable';

function withSwitch(s: Switch) {
  const h = harness();
  Object.assign(h.metricValues, STORM);
  if (s === 'missing') h.parameters.delete(CONFIG.KILL_SWITCH_PARAMETER_NAME);
  else if (s === 'unreadable')
    h.mocks.ssm.callsFake(async (input: { Name: string }) => {
      if (input.Name === CONFIG.KILL_SWITCH_PARAMETER_NAME)
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      return { Parameter: { Value: REPLAY_POLICY } };
    });
  else h.parameters.set(CONFIG.KILL_SWITCH_PARAMETER_NAME, s.value);
  return h;
}

describe('the kill switch in the evaluate function, on a storm tick that would scale 2 -> 6', () => {
  it.each([
    { case: '"on"', s: { value: 'on' } as Switch, detail: 'the kill switch is on: no action is taken' },
    {
      case: '" on" (a leading space)',
      s: { value: ' on' } as Switch,
      detail: 'the kill switch is on: no action is taken',
    },
    {
      case: '"on\\n" (a trailing newline)',
      s: { value: 'on\n' } as Switch,
      detail: 'the kill switch is on: no action is taken',
    },
    {
      case: '"ON " (capitals, a trailing space)',
      s: { value: 'ON ' } as Switch,
      detail: 'the kill switch is on: no action is taken',
    },
    {
      case: '"yes" (neither on nor off)',
      s: { value: 'yes' } as Switch,
      detail: 'the kill switch reads "yes", which is not "off": it counts as on, nothing is changed',
    },
    {
      case: 'a missing parameter',
      s: 'missing' as Switch,
      detail: 'the kill switch parameter does not exist: it counts as on, nothing is changed',
    },
    {
      case: 'an unreadable parameter',
      s: 'unreadable' as Switch,
      detail: expect.stringMatching(
        /^the kill switch cannot be read \(ThrottlingException: Rate exceeded\): it counts as on/,
      ),
    },
  ])('$case: killed, nothing claimed or started', async ({ s, detail }) => {
    const h = withSwitch(s);
    const [record] = (await h.evaluate(tick, NOW)).records;
    expect(record).toMatchObject({ outcome: 'killed', detail, inputs: { killSwitch: true } });
    expect(record?.decision).toMatchObject({ action: 'scale-out', desiredCapacity: 6 });
    const calls = h.takeCalls();
    expect(calls).not.toContain('StepFunctions.StartExecution');
    expect(calls).not.toContain('DynamoDB.Update');
  });

  it.each([
    { case: '"off"', value: 'off' },
    { case: '" off" (a leading space)', value: ' off' },
    { case: '"OFF\\n" (capitals, a trailing newline)', value: 'OFF\n' },
  ])(
    '$case lets the change through, and the execution carries the value for the last check',
    async ({ value }) => {
      const h = withSwitch({ value });
      const [record] = (await h.evaluate(tick, NOW)).records;
      expect(record).toMatchObject({ outcome: 'started', inputs: { killSwitch: false } });
      const input = JSON.parse(
        String(h.mocks.sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.input),
      );
      expect(input.killSwitchValue).toBe(value);
    },
  );

  it.each([
    { s: 'missing' as Switch, level: 'error' },
    { s: 'unreadable' as Switch, level: 'error' },
    { s: { value: 'yes' } as Switch, level: 'warn' },
  ])('says so in the log when the switch is on for want of an "off" ($s)', async ({ s, level }) => {
    const h = withSwitch(s);
    await h.evaluate(tick, NOW);
    expect(
      h.telemetry.lines.filter((l) => l.message.startsWith('the kill switch')).map((l) => l.level),
    ).toEqual([level]);
  });
});
