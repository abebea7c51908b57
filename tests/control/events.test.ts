import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EventError, parseEvent } from '#shared/events/parse.ts';

const fixture = (name: string): unknown => JSON.parse(readFileSync(`events/${name}.json`, 'utf8'));

describe('parseEvent', () => {
  it.each([
    {
      case: 'the scheduler tick parses to a tick with its id and time',
      file: 'scheduler-tick',
      expected: {
        kind: 'tick',
        id: '5e0f4c1a-7b52-4f5e-9c1d-2f7a8e6b9d01',
        time: Date.parse('2025-06-02T12:00:00Z'),
        source: 'aws.scheduler',
        account: '123456789012',
        region: 'us-east-1',
      },
    },
    {
      case: 'an alarm state change keeps the alarm name, state, region and the watched dimensions',
      file: 'alarm-chat-llm-latency',
      expected: {
        kind: 'alarm',
        alarmName: 'governor-chat-llm-p95-latency',
        state: 'ALARM',
        source: 'aws.cloudwatch',
        account: '123456789012',
        region: 'us-east-1',
        dimensions: [{ EndpointName: 'chat-llm-prod', VariantName: 'AllTraffic' }],
      },
    },
    {
      case: 'an alarm returning to OK parses with state OK',
      file: 'alarm-chat-llm-ok',
      expected: { kind: 'alarm', state: 'OK' },
    },
  ])('$case', ({ file, expected }) => {
    expect(parseEvent(fixture(file))).toMatchObject(expected);
  });

  it.each([
    {
      case: 'an alarm without a name is rejected naming detail.alarmName',
      event: fixture('malformed-alarm-no-name'),
      message: 'event field detail.alarmName is required: the name of the alarm that changed state',
    },
    {
      case: 'a tick whose time is not ISO 8601 is rejected naming time',
      event: fixture('malformed-tick-time'),
      message: 'event field time must be an ISO 8601 time such as "2025-01-01T12:00:00Z"',
    },
    {
      case: 'an event of another detail-type is rejected naming detail-type and the two accepted',
      event: fixture('malformed-unknown-detail-type'),
      message:
        'event field detail-type is "EC2 Instance State-change Notification": expected "Scheduled Event" or "CloudWatch Alarm State Change"',
    },
    {
      case: 'an alarm in an unknown state is rejected naming detail.state.value',
      event: {
        ...(fixture('alarm-chat-llm-latency') as object),
        detail: { alarmName: 'governor-x', state: { value: 'PANIC' } },
      },
      message: 'event field detail.state.value must be "OK", "ALARM" or "INSUFFICIENT_DATA"',
    },
    {
      case: 'a tick without an id is rejected, since duplicates are dropped by id',
      event: { 'detail-type': 'Scheduled Event', time: '2025-06-02T12:00:00Z' },
      message: 'event field id is required: the event id (used to drop duplicates)',
    },
    {
      case: 'a list is not an event',
      event: [1, 2],
      message: 'event is not a JSON object: expected an EventBridge event',
    },
    {
      case: 'an id longer than any EventBridge sends is rejected naming id, without quoting it',
      event: { ...(fixture('scheduler-tick') as object), id: 'x'.repeat(1_000_000) },
      message: 'event field id is longer than 128 characters: not an EventBridge event id',
    },
    {
      case: "an alarm name longer than CloudWatch's limit is rejected naming detail.alarmName",
      event: {
        ...(fixture('alarm-chat-llm-latency') as object),
        detail: { alarmName: `governor-${'y'.repeat(300)}`, state: { value: 'ALARM' } },
      },
      message:
        "event field detail.alarmName is longer than 255 characters, CloudWatch's limit for an alarm name",
    },
    {
      case: 'a huge detail-type is quoted clipped',
      event: { 'detail-type': 'z'.repeat(100_000) },
      // JSON of the value (100,002 characters with its quotes) cut to 80.
      message: `event field detail-type is "${'z'.repeat(79)}…[+99922 chars]: expected "Scheduled Event" or "CloudWatch Alarm State Change"`,
    },
  ])('$case', ({ event, message }) => {
    expect(() => parseEvent(event)).toThrow(new EventError(message));
  });
});
