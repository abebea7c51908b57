/**
 * Every resource type and property of template.yaml, at every depth, exists in the
 * CloudFormation and SAM resource specification (@aws-cdk/aws-service-spec); and the walk
 * catches an unknown name wherever it hides.
 */
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkTemplateAgainstSpec, type SpecLookup, specLookup } from '#shared/deploy/spec-check.ts';
import { changed, type Loose, template } from './load.ts';

let spec: SpecLookup;
beforeAll(() => {
  spec = specLookup(loadAwsServiceSpecSync());
});

describe('template.yaml against the resource specification', () => {
  it('uses only known resource types, attributes and properties', () => {
    expect(checkTemplateAgainstSpec(template, spec)).toEqual([]);
  });

  it.each(
    Object.entries(template.Resources as Record<string, { Type: string }>).map(([id, r]) => ({
      id,
      type: r.Type,
    })),
  )('$id is a $type the specification knows', ({ type }) => {
    expect(spec.properties(type)).not.toBeNull();
  });
});

describe('the walk finds an unknown name', () => {
  it.each([
    {
      case: 'in a resource type',
      change: (t: Loose) => (t.Resources.StateTable.Type = 'AWS::DynamoDB::Tabel'),
      path: 'Resources.StateTable.Type',
    },
    {
      case: 'among a resource’s attributes',
      change: (t: Loose) => (t.Resources.StateTable.DeletionPolicyy = 'Retain'),
      path: 'Resources.StateTable.DeletionPolicyy',
    },
    {
      case: 'among top-level properties',
      change: (t: Loose) => (t.Resources.StateTable.Properties.BillingModes = 'PAY_PER_REQUEST'),
      path: 'Resources.StateTable.Properties.BillingModes',
    },
    {
      case: 'in a nested property type',
      change: (t: Loose) => (t.Resources.EvaluateSchedule.Properties.Target.RetryPolicy.MaxRetries = 1),
      path: 'Resources.EvaluateSchedule.Properties.Target.RetryPolicy.MaxRetries',
    },
    {
      case: 'in an element of a list',
      change: (t: Loose) =>
        (t.Resources.ScaleTargetFailuresAlarm.Properties.Metrics[1].MetricStat.Stats = 'Sum'),
      path: 'Resources.ScaleTargetFailuresAlarm.Properties.Metrics[1].MetricStat.Stats',
    },
    {
      case: 'in a branch of Fn::If',
      change: (t: Loose) =>
        (t.Resources.StateTable.Properties.SSESpecification = {
          'Fn::If': ['HasAlarmEmail', { SSEEnabled: true }, { SSEEnable: true }],
        }),
      path: 'Resources.StateTable.Properties.SSESpecification.SSEEnable',
    },
    {
      case: 'in a SAM resource',
      change: (t: Loose) => (t.Resources.EvaluateFunction.Properties.Timeouts = 60),
      path: 'Resources.EvaluateFunction.Properties.Timeouts',
    },
    {
      case: 'in a SAM property type',
      change: (t: Loose) => (t.Resources.EvaluateFunction.Properties.EventInvokeConfig.MaxRetries = 1),
      path: 'Resources.EvaluateFunction.Properties.EventInvokeConfig.MaxRetries',
    },
    {
      case: 'in a property SAM passes through to AWS::Lambda::Function',
      change: (t: Loose) => (t.Resources.EvaluateFunction.Properties.LoggingConfig.LogGroupName = 'x'),
      path: 'Resources.EvaluateFunction.Properties.LoggingConfig.LogGroupName',
    },
  ])('$case', ({ change, path }) => {
    const problems = checkTemplateAgainstSpec(changed(change), spec);
    expect(problems.map((p) => p.path)).toEqual([path]);
  });

  it('accepts a value computed by an intrinsic function without looking inside', () => {
    const t = changed((t) => {
      t.Resources.StateTable.Properties.SSESpecification = { 'Fn::ImportValue': 'shared-sse-spec' };
    });
    expect(checkTemplateAgainstSpec(t, spec)).toEqual([]);
  });
});
