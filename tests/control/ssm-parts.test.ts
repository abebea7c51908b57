/**
 * The SSM adapter's read of the policy's parts (shared/aws/ssm.ts `under`): GetParametersByPath,
 * non-recursive, 10 a page until NextToken runs out, sorted by name whatever order SSM answers
 * in; none is an empty list after one call; a parameter without a value is an error, not an
 * empty part.
 */
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ssmParameters } from '#shared/aws/ssm.ts';

const ssm = mockClient(SSMClient);
const client = new SSMClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const p = (n: number) => ({ Name: `/governor/policy/parts/${String(n).padStart(3, '0')}`, Value: `v${n}` });

beforeEach(() => ssm.reset());

describe('reading the parameters under a path', () => {
  it('pages through NextToken, 10 at a time, non-recursive, and sorts by name', async () => {
    // Prepare: 23 parts, answered newest first, over three pages.
    ssm
      .on(GetParametersByPathCommand, { NextToken: undefined })
      .resolves({ Parameters: [23, 22, 21, 20, 19, 18, 17, 16, 15, 14].map(p), NextToken: 't1' })
      .on(GetParametersByPathCommand, { NextToken: 't1' })
      .resolves({ Parameters: [13, 12, 11, 10, 9, 8, 7, 6, 5, 4].map(p), NextToken: 't2' })
      .on(GetParametersByPathCommand, { NextToken: 't2' })
      .resolves({ Parameters: [3, 2, 1].map(p) });
    // Act
    const found = await ssmParameters(client).under('/governor/policy/parts');
    // Assess
    expect(found.map((f) => f.value)).toEqual(Array.from({ length: 23 }, (_, i) => `v${i + 1}`));
    const inputs = ssm.commandCalls(GetParametersByPathCommand).map((c) => c.args[0].input);
    expect(inputs).toEqual([
      { Path: '/governor/policy/parts', Recursive: false, MaxResults: 10, NextToken: undefined },
      { Path: '/governor/policy/parts', Recursive: false, MaxResults: 10, NextToken: 't1' },
      { Path: '/governor/policy/parts', Recursive: false, MaxResults: 10, NextToken: 't2' },
    ]);
  });

  it('with no parts, one call and an empty list', async () => {
    ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });
    expect(await ssmParameters(client).under('/governor/policy/parts')).toEqual([]);
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(1);
  });

  it('refuses a parameter without a value instead of reading it as an empty part', async () => {
    ssm.on(GetParametersByPathCommand).resolves({ Parameters: [{ Name: '/governor/policy/parts/001' }] });
    await expect(ssmParameters(client).under('/governor/policy/parts')).rejects.toThrow(
      'GetParametersByPath returned a parameter without a name or value (/governor/policy/parts/001)',
    );
  });

  it('passes a failed call on (the policy source says which path could not be read)', async () => {
    ssm
      .on(GetParametersByPathCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    await expect(ssmParameters(client).under('/governor/policy/parts')).rejects.toThrow('denied');
  });
});
