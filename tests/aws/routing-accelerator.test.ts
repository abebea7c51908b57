/**
 * The Global Accelerator traffic-dial adapter's exact calls, with the client mocked (moto has no
 * Global Accelerator): the client in us-west-2 whatever the stack's region, UpdateEndpointGroup
 * carrying the dial alone (never EndpointConfigurations, which would replace the endpoints),
 * raises before cuts, refusals before any call, and errors in one line.
 */
import {
  DescribeEndpointGroupCommand,
  GlobalAcceleratorClient,
  UpdateEndpointGroupCommand,
} from '@aws-sdk/client-global-accelerator';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS } from '#shared/aws/clients.ts';
import {
  type Dials,
  dialOrder,
  globalAcceleratorClient,
  globalAcceleratorDials,
} from '#shared/aws/routing-accelerator.ts';
import { awsError } from './fakes.ts';

const ga = mockClient(GlobalAcceleratorClient);
const port = globalAcceleratorDials(globalAcceleratorClient({ region: 'eu-west-1' }));
beforeEach(() => ga.reset());

const listener =
  'arn:aws:globalaccelerator::123456789012:accelerator/1234abcd-abcd-1234-abcd-1234abcdefgh/listener/0123vxyz';
const EAST = `${listener}/endpoint-group/east0001`;
const WEST = `${listener}/endpoint-group/west0002`;
const EU = `${listener}/endpoint-group/euwe0003`;

/** DescribeEndpointGroup answering from `dials`, which the updates change as the service would. */
function service(dials: Record<string, number>) {
  ga.on(DescribeEndpointGroupCommand).callsFake(
    async ({ EndpointGroupArn }: { EndpointGroupArn: string }) => ({
      EndpointGroup: {
        EndpointGroupArn,
        EndpointGroupRegion: 'us-east-1',
        TrafficDialPercentage: dials[EndpointGroupArn],
        EndpointDescriptions: [{ EndpointId: 'arn:aws:elasticloadbalancing:...', Weight: 128 }],
      },
    }),
  );
  ga.on(UpdateEndpointGroupCommand).callsFake(async ({ EndpointGroupArn, TrafficDialPercentage }) => {
    dials[EndpointGroupArn] = TrafficDialPercentage;
    return { EndpointGroup: { EndpointGroupArn, TrafficDialPercentage } };
  });
}
const updates = () => ga.commandCalls(UpdateEndpointGroupCommand).map((c) => c.args[0].input);

describe('the Global Accelerator client', () => {
  it('uses us-west-2 whatever the stack region, with the same retries as every client', async () => {
    const client = globalAcceleratorClient({ region: 'ap-southeast-2' });
    expect(await client.config.region()).toBe('us-west-2');
    expect(await client.config.maxAttempts()).toBe(MAX_ATTEMPTS);
  });
});

describe('setDials', () => {
  it('sends the dial alone, raises first then cuts, and reads every dial back', async () => {
    service({ [EAST]: 100, [WEST]: 0 });
    const change = await port.setDials({ [EAST]: 0, [WEST]: 100 });
    expect(updates()).toEqual([
      { EndpointGroupArn: WEST, TrafficDialPercentage: 100 },
      { EndpointGroupArn: EAST, TrafficDialPercentage: 0 },
    ]);
    expect(change).toEqual({ changed: [WEST, EAST], dials: { [EAST]: 0, [WEST]: 100 } });
    expect(ga.commandCalls(DescribeEndpointGroupCommand).map((c) => c.args[0].input)).toEqual([
      { EndpointGroupArn: EAST },
      { EndpointGroupArn: WEST },
      { EndpointGroupArn: EAST },
      { EndpointGroupArn: WEST },
    ]);
  });

  it('writes only the groups whose dial changes, fractions included', async () => {
    service({ [EAST]: 100, [WEST]: 50, [EU]: 0 });
    const change = await port.setDials({ [EAST]: 100, [WEST]: 12.5, [EU]: 40 });
    expect(updates()).toEqual([
      { EndpointGroupArn: EU, TrafficDialPercentage: 40 },
      { EndpointGroupArn: WEST, TrafficDialPercentage: 12.5 },
    ]);
    expect(change.dials).toEqual({ [EAST]: 100, [WEST]: 12.5, [EU]: 40 });
  });

  it('never has every dial at 0 between two calls, even when the second fails', async () => {
    service({ [EAST]: 100, [WEST]: 0 });
    ga.on(UpdateEndpointGroupCommand, { EndpointGroupArn: EAST }).rejects(
      awsError('InternalServiceErrorException', 'boom', 500),
    );
    await expect(port.setDials({ [EAST]: 0, [WEST]: 100 })).rejects.toThrow(
      `globalaccelerator:UpdateEndpointGroup on endpoint group ${EAST} failed (InternalServiceErrorException: boom)`,
    );
    expect(updates()).toEqual([
      { EndpointGroupArn: WEST, TrafficDialPercentage: 100 },
      { EndpointGroupArn: EAST, TrafficDialPercentage: 0 },
    ]);
  });

  it.each([
    {
      case: 'every dial at 0',
      dials: { [EAST]: 0, [WEST]: 0 },
      message: `refusing to dial every endpoint group of listener ${listener} to 0 % (${EAST}, ${WEST}): traffic must go somewhere; leave at least one above 0`,
    },
    {
      case: 'groups of two listeners',
      dials: { [EAST]: 100, [`${listener}2/endpoint-group/west0002`]: 0 },
      message: 'dials name endpoint groups of 2 listeners',
    },
    { case: 'no dials', dials: {}, message: 'dials is empty: name at least one' },
    {
      case: 'a dial above 100',
      dials: { [EAST]: 101 },
      message: `dials["${EAST}"] is 101; it must be a number from 0 to 100`,
    },
    {
      case: 'a dial that is not a number',
      dials: { [EAST]: Number.NaN },
      message: `dials["${EAST}"] is null`,
    },
    {
      case: 'an accelerator ARN instead of an endpoint group',
      dials: { [listener]: 50 },
      message: `dials: an endpoint group ARN is "${listener}", which is not of the form arn:aws:globalaccelerator::123456789012:accelerator/`,
    },
  ])('refuses $case before any call', async ({ dials, message }) => {
    await expect(port.setDials(dials as Dials)).rejects.toThrow(message);
    expect(ga.calls()).toHaveLength(0);
  });

  it.each([
    {
      case: 'access denied names the IAM action and the endpoint group',
      error: awsError('AccessDeniedException', 'not authorized', 403),
      message: `globalaccelerator:DescribeEndpointGroup on ${EAST} was denied (AccessDeniedException): grant globalaccelerator:DescribeEndpointGroup on ${EAST} to the role that routes traffic`,
    },
    {
      case: 'an unknown endpoint group names the fix',
      error: awsError('EndpointGroupNotFoundException', 'Endpoint group not found'),
      message: `endpoint group ${EAST} was not found (EndpointGroupNotFoundException: Endpoint group not found): check the endpoint group ARN (aws globalaccelerator list-endpoint-groups --region us-west-2)`,
    },
  ])('$case, before any write', async ({ error, message }) => {
    ga.on(DescribeEndpointGroupCommand).rejects(error);
    await expect(port.setDials({ [EAST]: 50, [WEST]: 50 })).rejects.toThrow(message);
    expect(updates()).toEqual([]);
  });
});

describe('dials', () => {
  it('reads each endpoint group with DescribeEndpointGroup', async () => {
    service({ [EAST]: 75, [WEST]: 25 });
    expect(await port.dials([EAST, WEST])).toEqual({ [EAST]: 75, [WEST]: 25 });
  });

  it('rejects a missing dial instead of reading it as 0', async () => {
    ga.on(DescribeEndpointGroupCommand).resolves({ EndpointGroup: { EndpointGroupArn: EAST } });
    await expect(port.dials([EAST])).rejects.toThrow(
      `DescribeEndpointGroup of ${EAST}: TrafficDialPercentage is missing`,
    );
  });
});

describe('dialOrder', () => {
  it.each([
    {
      case: 'a swap raises before it cuts',
      current: { a: 100, b: 0 },
      wanted: { a: 0, b: 100 },
      order: [
        ['b', 100],
        ['a', 0],
      ],
    },
    {
      case: 'nothing to change writes nothing',
      current: { a: 60, b: 40 },
      wanted: { a: 60, b: 40 },
      order: [],
    },
    {
      case: 'three groups keep their order within raises and cuts',
      current: { a: 50, b: 50, c: 0 },
      wanted: { a: 0, b: 0, c: 100 },
      order: [
        ['c', 100],
        ['a', 0],
        ['b', 0],
      ],
    },
  ])('$case', ({ current, wanted, order }) => {
    expect(dialOrder(current as Dials, Object.entries(wanted))).toEqual(order);
  });
});
