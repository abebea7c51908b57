import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '#shared/events/parse.ts';
import {
  accountOfArn,
  RecentIds,
  routeEvent,
  screenEvent,
  screenOrigin,
  screenTick,
  targetsForAlarm,
} from '#shared/events/routing.ts';
import { groupTarget, policyOf, threeTargets, variantTarget } from './policies.ts';

const event = (name: string) => parseEvent(JSON.parse(readFileSync(`events/${name}.json`, 'utf8')));
const T0 = Date.parse('2025-06-02T12:00:30Z');

describe('screenEvent: checks that need no policy and no AWS call', () => {
  it.each([
    { case: 'a fresh tick passes', file: 'scheduler-tick', now: T0, reason: null },
    { case: 'a fresh ALARM passes', file: 'alarm-chat-llm-latency', now: T0, reason: null },
    { case: 'an alarm 20 minutes old is stale', file: 'alarm-stale', now: T0, reason: 'StaleEvent' },
    {
      case: 'a tick 301 s old is stale',
      file: 'scheduler-tick',
      now: Date.parse('2025-06-02T12:05:01Z'),
      reason: 'StaleEvent',
    },
    {
      case: 'a tick exactly 300 s old still passes',
      file: 'scheduler-tick',
      now: Date.parse('2025-06-02T12:05:00Z'),
      reason: null,
    },
    {
      case: 'an event dated 10 minutes ahead is from a wrong clock',
      file: 'scheduler-tick',
      now: T0 - 630_000,
      reason: 'FutureEvent',
    },
    {
      case: 'an alarm without the governor- prefix is foreign',
      file: 'alarm-foreign',
      now: T0,
      reason: 'ForeignAlarm',
    },
    {
      case: 'an alarm returning to OK does not trigger',
      file: 'alarm-chat-llm-ok',
      now: Date.parse('2025-06-02T12:04:30Z'),
      reason: 'AlarmNotInAlarm',
    },
  ])('$case', ({ file, now, reason }) => {
    expect(screenEvent(event(file), now, 300)?.reason ?? null).toBe(reason);
  });
});

describe('routeEvent: which targets an event evaluates', () => {
  const policy = threeTargets();
  it.each([
    {
      case: 'a tick evaluates every target',
      file: 'scheduler-tick',
      ids: ['chat-llm', 'embedder', 'batch-gpu'],
    },
    {
      case: 'governor-chat-llm-... names chat-llm by its id',
      file: 'alarm-chat-llm-latency',
      ids: ['chat-llm'],
    },
    {
      case: 'an alarm on the endpoint dimensions names the variant target',
      file: 'alarm-by-dimensions',
      ids: ['chat-llm'],
    },
  ])('$case', ({ file, ids }) => {
    const route = routeEvent(event(file), policy);
    expect('targets' in route ? route.targets.map((t) => t.id) : route).toEqual(ids);
  });

  it('an alarm naming an endpoint the policy does not manage is UnmanagedTarget', () => {
    expect(routeEvent(event('alarm-unmanaged-target'), policy)).toMatchObject({ reason: 'UnmanagedTarget' });
  });
});

describe('targetsForAlarm', () => {
  const policy = policyOf(
    variantTarget({ id: 'chat' }),
    variantTarget({ id: 'chat-llm', endpointName: 'other-endpoint' }),
    groupTarget(),
  );
  it.each([
    {
      case: 'the longest matching id wins over a shorter prefix',
      name: 'governor-chat-llm-latency',
      dims: [],
      ids: ['chat-llm'],
    },
    { case: 'an exact id with no suffix names the target', name: 'governor-chat', dims: [], ids: ['chat'] },
    {
      case: 'a name that only starts like an id does not match it',
      name: 'governor-chatty',
      dims: [],
      ids: [],
    },
    {
      case: 'an Auto Scaling group is named by AutoScalingGroupName',
      name: 'governor-gpu-busy',
      dims: [{ AutoScalingGroupName: 'batch-gpu-asg' }],
      ids: ['batch-gpu'],
    },
    {
      case: 'EndpointName alone names every variant target of that endpoint',
      name: 'governor-backlog',
      dims: [{ EndpointName: 'other-endpoint' }],
      ids: ['chat-llm'],
    },
    {
      case: 'another variant of the endpoint names nothing',
      name: 'governor-x',
      dims: [{ EndpointName: 'chat-llm-prod', VariantName: 'Canary' }],
      ids: [],
    },
  ])('$case', ({ name, dims, ids }) => {
    expect(targetsForAlarm(name, dims, policy, 'us-east-1').map((t) => t.id)).toEqual(ids);
  });

  it('dimensions in another region than the alarm name no target', () => {
    expect(
      targetsForAlarm('governor-x', [{ AutoScalingGroupName: 'batch-gpu-asg' }], policy, 'eu-west-1'),
    ).toEqual([]);
  });
});

describe('screenOrigin: an event must come from this deployment', () => {
  const raw = (name: string) =>
    JSON.parse(readFileSync(`events/${name}.json`, 'utf8')) as Record<string, unknown>;
  const HOME = { account: '123456789012', region: 'us-east-1' };
  it.each([
    { case: 'the schedule tick passes', e: raw('scheduler-tick'), reason: null },
    { case: 'a CloudWatch alarm passes', e: raw('alarm-chat-llm-latency'), reason: null },
    {
      case: 'a tick from another source',
      e: { ...raw('scheduler-tick'), source: 'aws.events' },
      reason: 'ForeignSource',
    },
    {
      case: 'a tick with no source',
      e: { ...raw('scheduler-tick'), source: undefined },
      reason: 'ForeignSource',
    },
    {
      case: 'a tick from another account',
      e: { ...raw('scheduler-tick'), account: '999999999999' },
      reason: 'ForeignAccount',
    },
    {
      case: 'a tick with no account',
      e: { ...raw('scheduler-tick'), account: undefined },
      reason: 'ForeignAccount',
    },
    {
      case: 'a tick from another region',
      e: { ...raw('scheduler-tick'), region: 'eu-west-1' },
      reason: 'ForeignRegion',
    },
    {
      case: 'an alarm from another source',
      e: { ...raw('alarm-chat-llm-latency'), source: 'my.app' },
      reason: 'ForeignSource',
    },
    {
      case: 'an alarm from another account',
      e: { ...raw('alarm-chat-llm-latency'), account: '999999999999' },
      reason: 'ForeignAccount',
    },
    {
      case: 'an alarm from another region',
      e: { ...raw('alarm-chat-llm-latency'), region: 'ap-south-1' },
      reason: 'ForeignRegion',
    },
  ])('$case: $reason', ({ e, reason }) => {
    expect(screenOrigin(parseEvent(e), HOME)?.reason ?? null).toBe(reason);
  });

  it('checks no account where the deployment does not know its own (local runs)', () => {
    const e = parseEvent({ ...raw('scheduler-tick'), account: '999999999999' });
    expect(screenOrigin(e, { region: 'us-east-1' })).toBeNull();
  });

  it('quotes a foreign value clipped', () => {
    const e = parseEvent({ ...raw('scheduler-tick'), region: 'r'.repeat(100_000) });
    const refused = screenOrigin(e, HOME)!;
    expect(refused.message.length).toBeLessThan(300);
    expect(refused.message).toContain('…[+');
  });

  it.each([
    { arn: 'arn:aws:lambda:us-east-1:123456789012:function:governor-evaluate', account: '123456789012' },
    { arn: 'arn:aws:lambda:us-east-1:123456789012:function:f:live', account: '123456789012' },
    { arn: 'not an arn', account: undefined },
    { arn: undefined, account: undefined },
  ])('the account of $arn is $account', ({ arn, account }) => {
    expect(accountOfArn(arn)).toBe(account);
  });
});

describe('screenTick: the forecast function runs only fresh ticks', () => {
  const tickAt = (time: string) =>
    parseEvent({ ...JSON.parse(readFileSync('events/forecast-tick.json', 'utf8')), time });
  const NOW_F = Date.parse('2025-06-09T12:00:10Z');
  const limits = { maxAgeSeconds: 600, futureSeconds: 60 };
  it.each([
    { case: 'a tick 10 s old runs', time: '2025-06-09T12:00:00Z', reason: null },
    {
      case: 'a tick 10 minutes old still runs (a retry of a failed run)',
      time: '2025-06-09T11:50:10Z',
      reason: null,
    },
    { case: 'a tick 11 minutes old is refused', time: '2025-06-09T11:49:10Z', reason: 'StaleEvent' },
    { case: 'a tick dated 1970 is refused', time: '1970-01-01T00:00:00Z', reason: 'StaleEvent' },
    { case: 'a tick 50 s ahead (clock skew) runs', time: '2025-06-09T12:01:00Z', reason: null },
    { case: 'a tick 2 minutes ahead is refused', time: '2025-06-09T12:02:10Z', reason: 'FutureEvent' },
  ])('$case', ({ time, reason }) => {
    expect(screenTick(tickAt(time), NOW_F, limits)?.reason ?? null).toBe(reason);
  });
});

describe('RecentIds', () => {
  it('reports a repeat, forgets on request and drops the oldest past its limit', () => {
    const ids = new RecentIds(2);
    expect([ids.firstTime('a'), ids.firstTime('a'), ids.firstTime('b')]).toEqual([true, false, true]);
    ids.forget('b');
    expect(ids.firstTime('b')).toBe(true);
    ids.firstTime('c'); // evicts 'a'
    expect([ids.firstTime('a'), ids.firstTime('c')]).toEqual([true, false]);
  });
});
