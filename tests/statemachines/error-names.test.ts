/**
 * Every error name the state machines retry or catch is one Step Functions can report, checked
 * against AWS's models and pages rather than memory (issue 18, item 4), and cited in
 * docs/deploy.md ("Error names the state machines catch").
 *
 * - `States.*` are the Amazon States Language's own names; `Lambda.*` the Lambda integration's.
 * - An aws-sdk Task reports `<Service>.<Error>Exception` for an error its operation's model lists
 *   (SageMaker's UpdateEndpointWeightsAndCapacities lists ResourceLimitExceeded: so
 *   `SageMaker.ResourceLimitExceededException`), and `<Service>.<Service>Exception` for any other
 *   (the common errors every action may return: ThrottlingException, ValidationError). A name
 *   outside those never matches: `SageMaker.ValidationException` once stood where the refusal
 *   of an in-progress endpoint had to be caught.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { Models } from '../support/aws-model.ts';

const MACHINES = ['statemachines/scale-target.asl.json', 'statemachines/failover.asl.json'];
const DEPLOY_DOC = readFileSync('docs/deploy.md', 'utf8');

/** The Amazon States Language's and the Lambda integration's names (the pages docs/deploy.md cites). */
const STATES_NAMES = new Set([
  'States.ALL',
  'States.TaskFailed',
  'States.Timeout',
  'States.HeartbeatTimeout',
]);
const LAMBDA_NAMES = new Set([
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.Unknown',
]);
/** Step Functions' service name in an error (PascalCase) -> botocore's folder and its Task resource name. */
const SDK_SERVICES: Record<string, { folder: string; resource: string; generic: string }> = {
  sagemaker: { folder: 'sagemaker', resource: 'sagemaker', generic: 'SageMaker' },
  applicationautoscaling: {
    folder: 'application-autoscaling',
    resource: 'applicationautoscaling',
    generic: 'ApplicationAutoScaling',
  },
  ssm: { folder: 'ssm', resource: 'ssm', generic: 'Ssm' },
  cloudwatch: { folder: 'cloudwatch', resource: 'cloudwatch', generic: 'CloudWatch' },
};

interface Caught {
  machine: string;
  state: string;
  resource: string;
  name: string;
}

type State = { Type?: string; Resource?: string; Retry?: Rule[]; Catch?: Rule[]; [k: string]: unknown };
type Rule = { ErrorEquals: string[] };

function caughtIn(machine: string): Caught[] {
  const out: Caught[] = [];
  const visit = (states: Record<string, State>) => {
    for (const [name, s] of Object.entries(states)) {
      for (const rule of [...(s.Retry ?? []), ...(s.Catch ?? [])])
        for (const e of rule.ErrorEquals)
          out.push({ machine, state: name, resource: String(s.Resource ?? ''), name: e });
      for (const b of (s.Branches as { States: Record<string, State> }[] | undefined) ?? []) visit(b.States);
      const inner = (s.ItemProcessor ?? s.Iterator) as { States: Record<string, State> } | undefined;
      if (inner) visit(inner.States);
    }
  };
  visit((JSON.parse(readFileSync(machine, 'utf8')) as { States: Record<string, State> }).States);
  return out;
}

const ALL = MACHINES.flatMap(caughtIn);
const dataDir = inject('botocoreData');
const models = dataDir ? new Models(dataDir) : null;

/** The names an aws-sdk Task can report: its operation's modelled errors, each with "Exception", and the generic one. */
function sdkNames(resource: string): { service: string; names: Set<string> } | null {
  const m = /^arn:aws:states:::aws-sdk:([a-z0-9]+):([a-zA-Z0-9]+)$/.exec(resource);
  const known = m ? SDK_SERVICES[m[1]!] : undefined;
  if (!m || !known || models === null) return null;
  const model = models.get(known.folder)!;
  const operation = model.operations[m[2]!.charAt(0).toUpperCase() + m[2]!.slice(1)]!;
  const withSuffix = (e: string) => (e.endsWith('Exception') ? e : `${e}Exception`);
  const names = new Set((operation.errors ?? []).map((e) => `${known.generic}.${withSuffix(e.shape)}`));
  names.add(`${known.generic}.${known.generic}Exception`);
  return { service: known.generic, names };
}

describe('error names in the state machines', () => {
  it('finds the Retry and Catch rules to check', () => {
    expect(ALL.length).toBeGreaterThan(50);
  });

  it('every States.* and Lambda.* name is one Step Functions reports, Lambda.* only on lambda:invoke', () => {
    const wrong = ALL.filter((c) =>
      c.name.startsWith('States.')
        ? !STATES_NAMES.has(c.name)
        : c.name.startsWith('Lambda.') &&
          (!LAMBDA_NAMES.has(c.name) || !c.resource.startsWith('arn:aws:states:::lambda:invoke')),
    );
    expect(wrong.map((c) => `${c.machine} "${c.state}": ${c.name}`)).toEqual([]);
  });

  it.skipIf(models === null)(
    'every service error an aws-sdk Task catches is one its operation’s model lists, or the generic one',
    () => {
      const wrong = ALL.filter((c) => !c.name.startsWith('States.') && !c.name.startsWith('Lambda.')).filter(
        (c) => {
          const known = sdkNames(c.resource);
          return known === null || !known.names.has(c.name);
        },
      );
      expect(wrong.map((c) => `${c.machine} "${c.state}": ${c.name} (${c.resource})`)).toEqual([]);
    },
  );

  it('cites the AWS page that gives each name in docs/deploy.md', () => {
    const section = DEPLOY_DOC.slice(DEPLOY_DOC.indexOf('## Error names the state machines catch'));
    for (const name of new Set(ALL.map((c) => c.name))) {
      const row = section.split('\n').find((l) => l.includes(`\`${name}\``));
      expect(row, name).toMatch(/https:\/\/docs\.aws\.amazon\.com\//);
    }
  });
});
