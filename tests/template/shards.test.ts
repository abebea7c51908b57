/**
 * EvaluateShards in template.yaml: for 1 to 4 shards, the schedules that tick the evaluate
 * function (conditions resolved as CloudFormation would) carry every shard exactly once, each
 * input parsed by the function's own event parser as a tick of that shard from its own account
 * and region; the reserved concurrency is one per shard plus one for alarm events.
 */
import { describe, expect, it } from 'vitest';
import { parseEvent } from '#shared/events/parse.ts';
import { screenOrigin } from '#shared/events/routing.ts';
import { shardOfTick } from '#shared/events/shards.ts';
import { type Loose, resolved, template } from './load.ts';

const HOME = { account: '123456789012', region: 'us-east-1' };

/** A schedule's Input as EventBridge Scheduler sends it: the stack's Fn::Sub, then its own placeholders. */
function scheduledInput(schedule: Loose, execution: string, time: string): unknown {
  return JSON.parse(
    String(schedule.Target.Input['Fn::Sub'])
      .replace('${AWS::AccountId}', HOME.account)
      .replace('${AWS::Region}', HOME.region)
      .replace('<aws.scheduler.execution-id>', execution)
      .replace('<aws.scheduler.scheduled-time>', time)
      .replace('<aws.scheduler.schedule-arn>', 'arn:aws:scheduler:us-east-1:123456789012:schedule/default/x'),
  );
}

/** The deployed schedules that invoke the evaluate function, by logical id. */
function evaluateSchedules(t: Loose): [string, Loose][] {
  return Object.entries(t.Resources as Loose)
    .filter(([, r]) => r.Type === 'AWS::Scheduler::Schedule')
    .filter(([, r]) => r.Properties.Target.Arn['Fn::GetAtt']?.[0] === 'EvaluateFunction')
    .map(([id, r]) => [id, r.Properties]);
}

describe('EvaluateShards', () => {
  it('is a parameter of 1 to 4 shards, 1 by default', () => {
    expect((template.Parameters as Loose).EvaluateShards).toMatchObject({
      Type: 'Number',
      Default: 1,
      AllowedValues: [1, 2, 3, 4],
    });
  });

  it.each([1, 2, 3, 4].map((n) => ({ n })))(
    '$n shard(s): the schedules cover every shard exactly once, and the function may run $n + 1 at once',
    ({ n }) => {
      const t = resolved(template, { EvaluateShards: String(n) });
      const schedules = evaluateSchedules(t);
      expect(schedules.map(([id]) => id).sort()).toEqual(
        [
          'EvaluateSchedule',
          ...[1, 2, 3].filter((k) => k < n).map((k) => `EvaluateScheduleShard${k}`),
        ].sort(),
      );
      const shards = schedules.map(([id, s]) => {
        const raw = scheduledInput(s, `exec-${id}`, '2025-06-02T12:00:00Z');
        const event = parseEvent(raw);
        expect(event).toMatchObject({ kind: 'tick', id: `exec-${id}`, source: 'aws.scheduler', ...HOME });
        expect(screenOrigin(event, HOME)).toBeNull();
        expect(s.ScheduleExpression).toBe('rate(1 minute)');
        return { id, found: shardOfTick(raw) };
      });
      if (n === 1) {
        expect(shards).toEqual([{ id: 'EvaluateSchedule', found: { shard: null } }]);
      } else {
        const indexes = shards.map(({ found }) => {
          if (!('shard' in found) || found.shard === null) throw new Error('a schedule without a shard');
          expect(found.shard.count).toBe(n);
          return found.shard.index;
        });
        expect(indexes.sort()).toEqual(Array.from({ length: n }, (_, i) => i));
        expect(shards.find((s) => s.id === 'EvaluateSchedule')?.found).toEqual({
          shard: { index: 0, count: n },
        });
      }
      expect(t.Resources.EvaluateFunction.Properties.ReservedConcurrentExecutions).toBe(n + 1);
    },
  );

  it('each shard schedule keeps the base schedule’s retry, dead-letter queue and role', () => {
    const t = resolved(template, { EvaluateShards: '4' });
    const [base, ...copies] = evaluateSchedules(t).map(([, s]) => s.Target);
    for (const copy of copies) {
      expect({ ...copy, Input: undefined }).toEqual({ ...base, Input: undefined });
    }
  });
});
