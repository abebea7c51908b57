import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '#shared/control/events.ts';
import { RecentIds, routeEvent, screenEvent, targetsForAlarm } from '#shared/control/routing.ts';
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
