/**
 * The kill switch in the scale-target state machine, read again just before the change. The
 * one meaning (shared/invocation/kill-switch.ts) is judged by the evaluator, which passes the raw
 * value it judged off; the execution goes on only while the parameter still holds exactly that
 * value. So no value the pure function calls on (" on", "on\n", "ON ", missing, unreadable)
 * ever lets a change through here, and a switch turned back to another spelling of off stops
 * the change too (the next evaluation decides again).
 */
import { describe, expect, it } from 'vitest';
import { judgeKillSwitch } from '#shared/invocation/kill-switch.ts';
import {
  awsError,
  endpoint,
  fakeAws,
  killSwitch,
  run,
  Script,
  variantInput,
  writtenItem,
} from './harness.ts';

const applying = () => new Script(endpoint('InService', 1), endpoint('InService', 3));

describe('the kill switch in the state machine, with the evaluator having judged "off"', () => {
  it.each([
    { case: '"on"', value: 'on' as string | null },
    { case: '" on" (a leading space)', value: ' on' },
    { case: '"on\\n" (a trailing newline)', value: 'on\n' },
    { case: '"ON " (capitals and a trailing space)', value: 'ON ' },
    { case: '"maybe" (not off)', value: 'maybe' },
    { case: 'an empty value', value: '' },
    { case: 'a missing parameter', value: null },
  ])('$case changes nothing and records killed', async ({ value }) => {
    expect(judgeKillSwitch({ value }).on).toBe(true); // the evaluator would have called it on too
    const aws = fakeAws({ getParameters: new Script(killSwitch(value)), describeEndpoint: applying() });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { status: 'killed', reason: 'KillSwitch' } });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
    expect(aws.getItem.calls).toEqual([]);
    expect(writtenItem(aws).detail).toMatch(
      value === null
        ? /^KillSwitch: the kill switch parameter does not exist, which counts as on, so target chat-llm stayed at 1 instead of 3$/
        : /^KillSwitch: the kill switch reads ".*", not "off" as when the decision was made .* so target chat-llm stayed at 1 instead of 3$/s,
    );
  });

  it('an unreadable switch changes nothing and fails the execution (the scale-target-failures alarm sees it)', async () => {
    const aws = fakeAws({
      getParameters: new Script(awsError('Ssm.InternalServerErrorException', 'try later')),
      describeEndpoint: applying(),
    });
    const result = await run(variantInput(), aws);
    expect(result).toMatchObject({ status: 'FAILED', error: 'Governor.ActionFailed' });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });

  it('a switch turned on and back to "OFF" since the decision stops the change too: only the judged value passes', async () => {
    const aws = fakeAws({ getParameters: new Script(killSwitch('OFF')), describeEndpoint: applying() });
    const result = await run(variantInput({ killSwitchValue: 'off' }), aws);
    expect(result.output).toMatchObject({ status: 'killed' });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });

  it.each([
    { case: '"off"', value: 'off' },
    { case: '" Off\\n" (judged off by the evaluator, unchanged since)', value: ' Off\n' },
  ])('$case, unchanged since the decision, lets the change through', async ({ value }) => {
    expect(judgeKillSwitch({ value }).on).toBe(false);
    const aws = fakeAws({ getParameters: new Script(killSwitch(value)), describeEndpoint: applying() });
    const result = await run(variantInput({ killSwitchValue: value }), aws);
    expect(result.output).toMatchObject({ status: 'applied' });
    expect(aws.updateEndpointWeightsAndCapacities.calls).toHaveLength(1);
  });

  it('an input without the judged value (an older evaluator) changes nothing', async () => {
    const { killSwitchValue: _, ...input } = variantInput();
    const aws = fakeAws({ describeEndpoint: applying() });
    const result = await run(input, aws);
    expect(result.output).toMatchObject({ status: 'killed' });
    expect(writtenItem(aws).detail).toMatch(/^KillSwitch: the input carries no kill switch value judged off/);
    expect(aws.updateEndpointWeightsAndCapacities.calls).toEqual([]);
  });
});
