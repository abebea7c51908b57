/**
 * Step Functions transitions of a scale action, read from the ASL (shared/cost/transitions.ts):
 * the shortest successful path through the change, judged Choices, the poll loop after it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { executionPath, transitionsPerChange } from '#shared/cost/transitions.ts';

const scaleTarget = JSON.parse(readFileSync('statemachines/scale-target.asl.json', 'utf8')) as unknown;
const IN_SERVICE = { 'endpoint.status': 'InService', 'component.status': 'InService' };

describe('a scale action on statemachines/scale-target.asl.json', () => {
  it.each([
    {
      case: 'a variant: 27 states, 16 polls of 4 after 8 minutes',
      kind: 'sagemaker-variant',
      write: 'updateEndpointWeightsAndCapacities',
      path: 27,
      total: 91,
    },
    {
      case: 'an inference component: 26 states (its own status read), 16 polls of 4',
      kind: 'sagemaker-inference-component',
      write: 'updateInferenceComponentRuntimeConfig',
      path: 26,
      total: 90,
    },
  ])('$case', ({ kind, write, path, total }) => {
    const p = executionPath(scaleTarget, write, { kind, ...IN_SERVICE });
    expect(p).not.toBeNull();
    expect(p!.transitions).toBe(path);
    expect(p!.poll).toEqual({ waitSeconds: 30, states: 4 });
    expect(transitionsPerChange(p!, 480)).toBe(total);
    // The success path records the outcome (putItem) and reads which decision waits (getItem).
    expect(p!.dynamoWrites).toBe(1);
    expect(p!.dynamoReads).toBe(1);
    expect(p!.states.at(-1)).toBe('Capacity changed');
    expect(p!.states).not.toContain('Describe the failure');
  });
});

describe('paths through a small definition', () => {
  const def = {
    StartAt: 'Change',
    States: {
      Change: { Type: 'Task', Resource: 'arn:aws:states:::aws-sdk:sagemaker:updateThing', Next: 'Done yet?' },
      'Done yet?': {
        Type: 'Choice',
        Choices: [{ Variable: '$.status', StringEquals: 'Ready', Next: 'Say applied' }],
        Default: 'Wait',
      },
      Wait: { Type: 'Wait', Seconds: 60, Next: 'Done yet?' },
      'Say applied': {
        Type: 'Pass',
        Parameters: { status: 'applied' },
        ResultPath: '$.outcome',
        Next: 'Where?',
      },
      'Where?': {
        Type: 'Choice',
        Choices: [{ Variable: '$.outcome.status', StringEquals: 'failed', Next: 'Give up' }],
        Default: 'Fine',
      },
      'Give up': { Type: 'Fail' },
      Fine: { Type: 'Succeed' },
    },
  };

  it('counts the states entered, follows the outcome written, and prices the wait in polls', () => {
    const p = executionPath(def, 'updateThing')!;
    expect(p.states).toEqual(['Change', 'Done yet?', 'Say applied', 'Where?', 'Fine']);
    expect(p.poll).toEqual({ waitSeconds: 60, states: 2 });
    // 5 states, then 3 minutes of 60 s polls of 2 states (Wait, Done yet?): 5 + 3 x 2.
    expect(transitionsPerChange(p, 180)).toBe(11);
  });

  it('finds no path for a change the definition never makes', () => {
    expect(executionPath(def, 'deleteThing')).toBeNull();
  });
});
