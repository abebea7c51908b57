/** Parsing the recorded EventBridge events (SQS record bodies) into spot events. */
import { describe, expect, it } from 'vitest';
import { parseSpotBody, spotShortage } from '#shared/interruptions/events.ts';
import { fixture } from './harness.ts';

const T = (iso: string) => Date.parse(iso);

describe('parseSpotBody', () => {
  it.each([
    {
      case: 'a spot interruption warning gives its instance and action',
      name: 'spot-interruption-warning',
      want: [
        {
          kind: 'interruption',
          instanceId: 'i-0b662ef9931388ba0',
          action: 'terminate',
          at: T('2026-01-05T12:00:00Z'),
        },
      ],
    },
    {
      case: 'a rebalance recommendation gives its instance',
      name: 'rebalance-recommendation',
      want: [{ kind: 'rebalance', instanceId: 'i-0b662ef9931388ba0' }],
    },
    {
      case: 'a spot launch failed for g5.2xlarge capacity is a shortage in that pool',
      name: 'launch-unsuccessful-spot',
      want: [
        {
          kind: 'launch-failed',
          groupName: 'gpu-asg',
          statusCode: 'Failed',
          shortage: { instanceType: 'g5.2xlarge' },
        },
      ],
    },
    {
      case: '"no Spot capacity" naming no type is a shortage of spot as a whole',
      name: 'launch-unsuccessful-no-spot',
      want: [{ kind: 'launch-failed', shortage: { instanceType: null } }],
    },
    {
      case: 'an EC2 retirement Health event gives one event per affected instance',
      name: 'health-retirement',
      want: [
        {
          kind: 'retirement',
          instanceId: 'i-0b662ef9931388ba0',
          eventTypeCode: 'AWS_EC2_PERSISTENT_INSTANCE_RETIREMENT_SCHEDULED',
        },
        { kind: 'retirement', instanceId: 'i-0c1d2e3f4a5b6c7d8' },
      ],
    },
  ])('$case', ({ name, want }) => {
    const parsed = parseSpotBody(fixture(name));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.events).toHaveLength(want.length);
    expect(parsed.events).toMatchObject(
      want.map((w) => ({ account: '123456789012', region: 'us-east-1', ...w })),
    );
  });

  it.each([
    {
      case: 'a warning without instance-id',
      body: fixture('invalid-warning'),
      problem: /detail\.instance-id/,
    },
    { case: 'a body that is not JSON', body: '{"detail-type":', problem: /not JSON/ },
    {
      case: 'an event this function does not handle',
      body: '{"detail-type":"Scheduled Event"}',
      problem: /"Scheduled Event" is not one/,
    },
    {
      case: 'a warning from a malformed account',
      body: fixture('spot-interruption-warning').replace('"123456789012"', '"12345"'),
      problem: /account must be a 12-digit account id/,
    },
  ])('refuses $case, naming the field', ({ body, problem }) => {
    const parsed = parseSpotBody(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });

  it('a Health event of another service names no instance to replace', () => {
    const other = JSON.parse(fixture('health-retirement'));
    other.detail.service = 'RDS';
    expect(parseSpotBody(JSON.stringify(other))).toEqual({ ok: true, events: [] });
  });
});

describe('spotShortage', () => {
  it.each([
    {
      case: 'no Spot capacity, no type',
      message: 'There is no Spot capacity available that matches your request.',
      want: { instanceType: null },
    },
    {
      case: 'spot InsufficientInstanceCapacity naming p4d.24xlarge',
      message:
        'Could not launch Spot Instances. InsufficientInstanceCapacity - We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (us-east-1a).',
      want: { instanceType: 'p4d.24xlarge' },
    },
    {
      case: 'an on-demand shortage (no spot named)',
      message:
        'We currently do not have sufficient g5.2xlarge capacity in the Availability Zone you requested (us-east-1a). InsufficientInstanceCapacity',
      want: null,
    },
    {
      case: 'a spot price too low',
      message:
        'Could not launch Spot Instances. SpotMaxPriceTooLow - Your Spot request price is lower than the minimum.',
      want: null,
    },
    { case: 'a launch template error', message: 'The specified launch template does not exist.', want: null },
  ])('$case', ({ message, want }) => {
    expect(spotShortage(message)).toEqual(want);
  });
});
