/**
 * What an invocation could not do is reported, never lost or half-done:
 * - a target is not started with less than EVALUATE_TARGET_MARGIN_MS (15 s) left: recorded as
 *   deferred (DeadlineReached), nothing claimed or changed, named in the report and counted;
 * - a decision record the state table refused is counted (AuditWriteFailures, which the
 *   template alarms on), logged as AuditWriteFailed, and named in the report.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { eventFile, harness } from './harness.ts';

const NOW = Date.parse('2025-06-02T12:00:30Z');
const STORM = { InvocationsPerInstance: 250, GPUUtilization: 95, ModelLatency: 1_500_000 };
const tick = eventFile('scheduler-tick');

describe('the time budget of an invocation', () => {
  it('with 10 s left after the reads, the target is not started: deferred, nothing claimed, reported', async () => {
    const h = harness();
    Object.assign(h.metricValues, STORM);
    const report = await h.evaluate(tick, NOW, { leftMs: () => 10_000 });
    expect(report.records[0]).toMatchObject({
      outcome: 'deferred',
      decision: null,
      detail:
        "DeadlineReached: 10 s left of the invocation, under the 15 s one target's claim, action and record may take: not started, nothing was changed; the next run does it",
    });
    expect(report.deadlineSkipped).toEqual(['chat-llm']);
    const calls = h.takeCalls();
    expect(calls).not.toContain('DynamoDB.Get');
    expect(calls).not.toContain('DynamoDB.Update');
    expect(calls).not.toContain('StepFunctions.StartExecution');
    expect(calls.at(-1)).toBe('DynamoDB.Put'); // the deferred record is still written
    expect(h.telemetry.counts.DeadlineSkips).toBe(1);
    expect(h.telemetry.successes).toBe(0);
  });

  it('with time enough, the same tick claims and starts as usual', async () => {
    const h = harness();
    Object.assign(h.metricValues, STORM);
    const report = await h.evaluate(tick, NOW, { leftMs: () => 50_000 });
    expect(report.records[0]?.outcome).toBe('started');
    expect(report.deadlineSkipped).toEqual([]);
  });
});

describe('a decision record the state table refuses', () => {
  it('is counted as AuditWriteFailures, logged as AuditWriteFailed, and named in the report; the decision stands', async () => {
    const h = harness();
    Object.assign(h.metricValues, STORM);
    h.mocks.ddb
      .on(PutCommand)
      .rejects(
        Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ThrottlingException' }),
      );
    const report = await h.evaluate(tick, NOW);
    expect(report.records[0]?.outcome).toBe('started');
    expect(report.auditWriteFailures).toEqual(['chat-llm']);
    expect(h.telemetry.counts.AuditWriteFailures).toBe(1);
    expect(h.telemetry.lines).toContainEqual({
      level: 'error',
      message:
        'AuditWriteFailed: the decision record d1 of chat-llm was not written to the state table; it is in this log only',
    });
    // The full record is still logged: nothing is lost.
    expect(h.telemetry.decisions.map((r) => r.decisionId)).toEqual(['d1']);
  });

  it('a written record reports no failure', async () => {
    const h = harness();
    const report = await h.evaluate(tick, NOW);
    expect(report.auditWriteFailures).toEqual([]);
    expect(h.telemetry.counts.AuditWriteFailures).toBeUndefined();
  });
});
