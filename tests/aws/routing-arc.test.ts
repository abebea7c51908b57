/**
 * The ARC routing-control adapter's exact calls, with the data-plane client mocked (moto has no
 * Route 53 ARC): the one UpdateRoutingControlStates, the cluster endpoints tried in turn from a
 * random start (fixed here), refusals before any call, and errors in one line.
 */
import {
  GetRoutingControlStateCommand,
  Route53RecoveryClusterClient,
  UpdateRoutingControlStatesCommand,
} from '@aws-sdk/client-route53-recovery-cluster';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS } from '#shared/aws/clients.ts';
import {
  arcClusterClients,
  arcRoutingControls,
  type ClusterEndpoint,
  type ControlGroup,
} from '#shared/aws/routing-arc.ts';
import { awsError } from './fakes.ts';

const arc = mockClient(Route53RecoveryClusterClient);
beforeEach(() => arc.reset());

const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-northeast-1', 'ap-southeast-2'];
const endpoints: ClusterEndpoint[] = REGIONS.map((region) => ({
  url: `https://host-abc.route53-recovery-cluster.${region}.amazonaws.com/v1`,
  region,
}));
const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };

/** The port, with the first endpoint tried fixed by `random`, and the region each call went to. */
function setup(random: number) {
  const regionOf = new Map<object, string>();
  const build = arcClusterClients({ region: 'us-east-1', credentials });
  const clientFor = (e: ClusterEndpoint) => {
    const client = build(e);
    regionOf.set(client, e.region);
    return client;
  };
  const port = arcRoutingControls(clientFor, endpoints, { random: () => random });
  const tried = () => arc.calls().map((c) => regionOf.get(c.thisValue as object));
  return { port, tried };
}

const arn = (id: string) =>
  `arn:aws:route53-recovery-control::123456789012:controlpanel/cp1/routingcontrol/${id}`;
const chat: ControlGroup = { name: 'chat-api', states: { [arn('east')]: 'Off', [arn('west')]: 'On' } };
const embed: ControlGroup = { name: 'embed-api', states: { [arn('embed-east')]: 'On' } };

describe('the cluster clients', () => {
  it('are one per endpoint, in its region, at its URL, with the same retries as every client', async () => {
    const build = arcClusterClients({ region: 'eu-central-1', credentials });
    const client = build(endpoints[1]!);
    expect(build(endpoints[1]!)).toBe(client);
    expect(await client.config.region()).toBe('us-west-2');
    expect(await client.config.maxAttempts()).toBe(MAX_ATTEMPTS);
    const url = await client.config.endpoint!();
    expect(`${url.protocol}//${url.hostname}${url.path}`).toBe(endpoints[1]!.url);
  });
});

describe('setStates', () => {
  it('sets every control of the groups in one UpdateRoutingControlStates', async () => {
    const { port, tried } = setup(0);
    arc.on(UpdateRoutingControlStatesCommand).resolves({});
    await port.setStates([chat, embed]);
    expect(arc.commandCalls(UpdateRoutingControlStatesCommand).map((c) => c.args[0].input)).toEqual([
      {
        UpdateRoutingControlStateEntries: [
          { RoutingControlArn: arn('east'), RoutingControlState: 'Off' },
          { RoutingControlArn: arn('west'), RoutingControlState: 'On' },
          { RoutingControlArn: arn('embed-east'), RoutingControlState: 'On' },
        ],
      },
    ]);
    expect(tried()).toEqual(['us-east-1']);
  });

  it.each([
    { case: 'random 0 starts at the first endpoint', random: 0, start: 0 },
    { case: 'random 0.5 starts at the third', random: 0.5, start: 2 },
    { case: 'random just under 1 starts at the last', random: 0.9999, start: 4 },
  ])('$case and moves to the next on failures another endpoint may not have', async ({ random, start }) => {
    const { port, tried } = setup(random);
    arc
      .on(UpdateRoutingControlStatesCommand)
      .rejectsOnce(awsError('EndpointTemporarilyUnavailableException', 'down', 503))
      .rejectsOnce(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))
      .resolves({});
    await port.setStates([chat]);
    expect(tried()).toEqual([0, 1, 2].map((k) => REGIONS[(start + k) % 5]));
  });

  it('tries all five endpoints once and names each failure when none answers', async () => {
    const { port, tried } = setup(0.5);
    arc.on(UpdateRoutingControlStatesCommand).rejects(awsError('InternalServerException', 'boom', 500));
    await expect(port.setStates([chat])).rejects.toThrow(
      'route53-recovery-cluster:UpdateRoutingControlStates on routing controls ' +
        `${arn('east')}, ${arn('west')} failed on all 5 cluster endpoints (eu-west-1: InternalServerException; ` +
        'ap-northeast-1: InternalServerException; ap-southeast-2: InternalServerException; us-east-1: InternalServerException; ' +
        'us-west-2: InternalServerException): check the cluster endpoints',
    );
    expect(tried()).toEqual(['eu-west-1', 'ap-northeast-1', 'ap-southeast-2', 'us-east-1', 'us-west-2']);
  });

  it.each([
    {
      case: 'access denied names the IAM action and the controls',
      error: awsError('AccessDeniedException', 'not authorized', 403),
      message: `route53-recovery-cluster:UpdateRoutingControlStates on 2 routing controls (${arn('east')}, ${arn('west')}) was denied (AccessDeniedException): grant route53-recovery-cluster:UpdateRoutingControlStates on`,
    },
    {
      case: "a safety rule's conflict says what ARC said",
      error: awsError('ConflictException', 'Update would violate\nsafety rule at-least-one', 409),
      message: `route53-recovery-cluster:UpdateRoutingControlStates on routing controls ${arn('east')}, ${arn('west')} failed (ConflictException: Update would violate safety rule at-least-one)`,
    },
    {
      case: 'an unknown control names the fix',
      error: awsError('ResourceNotFoundException', 'no such control', 404),
      message: 'was not found (ResourceNotFoundException: no such control): check the routing control ARNs',
    },
  ])('stops at once on a definitive answer: $case', async ({ error, message }) => {
    const { port, tried } = setup(0);
    arc.on(UpdateRoutingControlStatesCommand).rejects(error);
    await expect(port.setStates([chat])).rejects.toThrow(message);
    expect(tried()).toEqual(['us-east-1']);
  });

  it.each([
    {
      case: 'a group left all Off',
      groups: [embed, { name: 'chat-api', states: { [arn('east')]: 'Off', [arn('west')]: 'Off' } }],
      message: `refusing to turn every routing control of group "chat-api" Off (${arn('east')}, ${arn('west')}): traffic must go somewhere; leave at least one On`,
    },
    { case: 'no groups', groups: [], message: 'groups is empty: give at least one' },
    {
      case: 'a group without controls',
      groups: [{ name: 'chat-api', states: {} }],
      message: 'groups[0].states is empty',
    },
    {
      case: 'a group without a name',
      groups: [{ name: '', states: chat.states }],
      message: 'groups[0].name is empty',
    },
    {
      case: 'an ARN that is not a routing control',
      groups: [
        {
          name: 'chat-api',
          states: { 'arn:aws:route53-recovery-control::123456789012:controlpanel/cp1': 'On' },
        },
      ],
      message:
        'groups[0].states: a routing control ARN is "arn:aws:route53-recovery-control::123456789012:controlpanel/cp1", which is not of the form arn:aws:route53-recovery-control::123456789012:controlpanel/abc123/routingcontrol/def456',
    },
    {
      case: 'a state other than On and Off',
      groups: [{ name: 'chat-api', states: { [arn('east')]: 'ON' } }],
      message: `groups[0].states["${arn('east')}"] is "ON"; it must be "On" or "Off"`,
    },
    {
      case: 'a control On in one group and Off in another',
      groups: [chat, { name: 'other', states: { [arn('east')]: 'On' } }],
      message: `routing control ${arn('east')} is both On and Off in groups`,
    },
  ])('refuses $case before any call', async ({ groups, message }) => {
    const { port } = setup(0);
    await expect(port.setStates(groups as ControlGroup[])).rejects.toThrow(message);
    expect(arc.calls()).toHaveLength(0);
  });
});

describe('states', () => {
  it('reads each control with GetRoutingControlState, moving on from an endpoint that fails', async () => {
    const { port, tried } = setup(0.2);
    arc
      .on(GetRoutingControlStateCommand)
      .rejectsOnce(awsError('ThrottlingException', 'slow down', 429))
      .resolvesOnce({ RoutingControlArn: arn('east'), RoutingControlState: 'Off' })
      .resolvesOnce({ RoutingControlArn: arn('west'), RoutingControlState: 'On' });
    expect(await port.states([arn('east'), arn('west')])).toEqual({
      [arn('east')]: 'Off',
      [arn('west')]: 'On',
    });
    expect(arc.commandCalls(GetRoutingControlStateCommand).map((c) => c.args[0].input)).toEqual([
      { RoutingControlArn: arn('east') },
      { RoutingControlArn: arn('east') },
      { RoutingControlArn: arn('west') },
    ]);
    expect(tried()).toEqual(['us-west-2', 'eu-west-1', 'us-west-2']);
  });

  it('rejects a state that is neither On nor Off instead of guessing', async () => {
    const { port } = setup(0);
    arc.on(GetRoutingControlStateCommand).resolves({ RoutingControlArn: arn('east') });
    await expect(port.states([arn('east')])).rejects.toThrow(
      `GetRoutingControlState of ${arn('east')}: RoutingControlState is undefined`,
    );
  });

  it('rejects a malformed ARN before any call', async () => {
    const { port } = setup(0);
    await expect(port.states([arn('east'), 'routingcontrol/x'])).rejects.toThrow(
      'arns[1] is "routingcontrol/x"',
    );
    expect(arc.calls()).toHaveLength(0);
  });
});

describe('the cluster endpoints', () => {
  it.each([
    { case: 'none', given: [], message: 'clusterEndpoints is empty' },
    {
      case: 'a URL that is not one',
      given: [{ url: 'host-abc/v1', region: 'us-east-1' }],
      message: 'clusterEndpoints[0].url is "host-abc/v1", which is not an http(s) URL',
    },
    {
      case: 'a missing region',
      given: [{ url: endpoints[0]!.url, region: '' }],
      message: 'clusterEndpoints[0].region is empty',
    },
    {
      case: 'a host that is not an ARC cluster of AWS (signed calls would go there)',
      given: [{ url: 'https://host-abc.attacker.example/v1', region: 'us-east-1' }],
      message:
        'clusterEndpoints[0].url is "https://host-abc.attacker.example/v1", which is not an ARC cluster endpoint of AWS in us-east-1',
    },
    {
      case: "an AWS cluster host of another region than the endpoint's",
      given: [{ url: endpoints[1]!.url, region: 'us-east-1' }],
      message: 'which is not an ARC cluster endpoint of AWS in us-east-1',
    },
    {
      case: 'plain http to a cluster host',
      given: [{ url: endpoints[0]!.url.replace('https:', 'http:'), region: endpoints[0]!.region }],
      message: 'which is not an ARC cluster endpoint of AWS',
    },
  ])('are refused at construction when $case', ({ given, message }) => {
    expect(() => arcRoutingControls(arcClusterClients({ region: 'us-east-1' }), given)).toThrow(message);
  });
});
