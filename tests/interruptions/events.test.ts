/** Parsing the recorded EventBridge events (SQS record bodies) into spot events. */
import { readFileSync } from 'node:fs';
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
    expect(parseSpotBody(JSON.stringify(other))).toMatchObject({
      ok: true,
      events: [],
      skipped: { reason: 'NotEc2Instance' },
    });
  });

  // AWS Health's EventBridge schema: statusCode upcoming | open | closed; the category of a
  // retirement or maintenance is scheduledChange (shared/interruptions/events.ts cites the page).
  it.each([
    { case: 'an upcoming scheduledChange replaces', category: 'scheduledChange', status: 'upcoming', n: 2 },
    { case: 'an open scheduledChange replaces', category: 'scheduledChange', status: 'open', n: 2 },
    {
      case: 'a closed scheduledChange (done or cancelled) replaces nothing',
      category: 'scheduledChange',
      status: 'closed',
      n: 0,
    },
    { case: 'an open issue replaces nothing', category: 'issue', status: 'open', n: 0 },
    {
      case: 'an accountNotification replaces nothing',
      category: 'accountNotification',
      status: 'upcoming',
      n: 0,
    },
    {
      case: 'a Health event with no status replaces nothing',
      category: 'scheduledChange',
      status: undefined,
      n: 0,
    },
  ])('$case', ({ category, status, n }) => {
    const e = JSON.parse(fixture('health-retirement'));
    e.detail.eventTypeCategory = category;
    e.detail.statusCode = status;
    const parsed = parseSpotBody(JSON.stringify(e));
    expect(parsed.ok && parsed.events.length).toBe(n);
    if (n === 0) expect(parsed).toMatchObject({ skipped: { reason: 'NotActionable' } });
  });

  it.each([
    { name: 'health-retirement-upcoming', n: 2 },
    { name: 'health-retirement-closed', n: 0 },
    { name: 'health-issue-open', n: 0 },
  ])('the real-shaped Health event $name names $n instances to replace', ({ name, n }) => {
    const parsed = parseSpotBody(readFileSync(`events/spot/${name}.json`, 'utf8'));
    expect(parsed.ok && parsed.events.map((e) => e.kind)).toEqual(Array(n).fill('retirement'));
  });

  it.each([
    { case: 'detail-type "constructor"', body: '{"detail-type":"constructor"}' },
    { case: 'detail-type "__proto__"', body: '{"detail-type":"__proto__"}' },
    { case: 'detail-type "toString"', body: '{"detail-type":"toString","detail":{}}' },
    {
      case: 'a "__proto__" key carrying the detail-type',
      body: '{"__proto__":{"detail-type":"AWS Health Event"}}',
    },
    { case: 'an array', body: '[1,2]' },
    { case: 'null', body: 'null' },
    {
      case: 'a 400 KB region',
      body: fixture('spot-interruption-warning').replace('"us-east-1"', JSON.stringify('r'.repeat(400_000))),
    },
  ])('refuses $case without throwing, in a bounded line', ({ body }) => {
    const parsed = parseSpotBody(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.length).toBeLessThan(400);
  });
});

describe('spotShortage', () => {
  it.each([
    {
      case: 'no Spot capacity, no type',
      message: 'There is no Spot capacity available that matches your request.',
      want: { instanceType: null, availabilityZone: null, code: 'NoSpotCapacity' },
    },
    {
      case: 'spot InsufficientInstanceCapacity naming p4d.24xlarge',
      message:
        'Could not launch Spot Instances. InsufficientInstanceCapacity - We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (us-east-1a).',
      want: { instanceType: 'p4d.24xlarge', availabilityZone: null, code: 'InsufficientInstanceCapacity' },
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
