/**
 * The Tracing parameter: Disabled by default (PassThrough, POWERTOOLS_TRACE_ENABLED=false, no
 * X-Ray grant), Active turns on X-Ray for every function and state machine of the template (the
 * failover ones included), with the grants the X-Ray daemon and Step Functions need.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObject, type Json, type JsonObject } from '#shared/deploy/cfn-yaml.ts';
import { type Loose, props, template } from './load.ts';

const byType = (type: string) =>
  Object.entries(template.Resources as Loose)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);
const functions = byType('AWS::Serverless::Function');
const machines = byType('AWS::Serverless::StateMachine');
/** The role each function or state machine runs as (Role: !GetAtt X.Arn). */
const roleOf = (id: string) => String((props(id).Role as Loose)['Fn::GetAtt'][0]);
/**
 * Handlers that build the Powertools Tracer (shared/aws/tracing.ts), themselves or through
 * lambdaRuntime() (shared/aws/lambda-runtime.ts), read POWERTOOLS_TRACE_ENABLED.
 */
const readsTraceSwitch = (id: string) => {
  const entry = (template.Resources as Loose)[id].Metadata.BuildProperties.EntryPoints[0];
  const source = readFileSync(entry, 'utf8');
  return source.includes('createTracing(') || source.includes('lambdaRuntime(');
};

/** The value with every Fn::If on TracingOn resolved (other conditions are left alone). */
function resolve(value: Json, tracingOn: boolean): Json {
  if (Array.isArray(value)) return value.map((v) => resolve(v, tracingOn)).filter((v) => v !== null);
  if (!isObject(value)) return value;
  const cond = value['Fn::If'];
  if (Array.isArray(cond) && cond[0] === 'TracingOn') {
    const chosen = cond[tracingOn ? 1 : 2] as Json;
    return isObject(chosen) && chosen.Ref === 'AWS::NoValue' ? null : resolve(chosen, tracingOn);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, tracingOn)]));
}

const statements = (role: string, on: boolean) => {
  const [policy] = props(role).Policies as JsonObject[];
  const document = (policy as JsonObject).PolicyDocument as JsonObject;
  return (resolve(document.Statement as Json, on) as JsonObject[]).filter(
    (s) => isObject(s) && s.Sid === 'SendTraces',
  );
};

describe('the Tracing parameter', () => {
  it('is Disabled by default, Active or Disabled only', () => {
    expect((template.Parameters as JsonObject).Tracing).toMatchObject({
      Default: 'Disabled',
      AllowedValues: ['Disabled', 'Active'],
    });
    expect((template.Conditions as JsonObject).TracingOn).toEqual({
      'Fn::Equals': [{ Ref: 'Tracing' }, 'Active'],
    });
  });

  it('covers the failover functions and state machine', () => {
    expect(functions).toEqual(expect.arrayContaining(['FailoverFunction', 'FailoverActFunction']));
    expect(machines).toContain('FailoverStateMachine');
  });

  it.each([
    [false, 'PassThrough', 'false', false],
    [true, 'Active', 'true', true],
  ])(
    'TracingOn=%s: functions %s, POWERTOOLS_TRACE_ENABLED=%s, state machine tracing %s',
    (on, mode, env, sfn) => {
      for (const fn of functions) {
        const p = resolve(props(fn), on) as JsonObject;
        expect(p.Tracing, fn).toBe(mode);
        const variables = (p.Environment as JsonObject).Variables as JsonObject;
        expect(variables.POWERTOOLS_TRACE_ENABLED, fn).toBe(readsTraceSwitch(fn) ? env : undefined);
      }
      for (const machine of machines)
        expect((resolve(props(machine), on) as JsonObject).Tracing, machine).toEqual({ Enabled: sfn });
      for (const role of [...functions, ...machines].map(roleOf)) {
        const granted = statements(role, on).flatMap((s) => s.Action as string[]);
        expect(granted, role).toEqual(
          on
            ? [
                'xray:PutTraceSegments',
                'xray:PutTelemetryRecords',
                'xray:GetSamplingRules',
                'xray:GetSamplingTargets',
              ]
            : [],
        );
      }
    },
  );
});
