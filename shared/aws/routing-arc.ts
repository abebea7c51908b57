/**
 * Route 53 Application Recovery Controller routing controls, through the data plane (the
 * cluster): several controls set On or Off in one UpdateRoutingControlStates, read back with
 * GetRoutingControlState.
 *
 * A cluster answers on five regional endpoints. ARC's guidance for static stability is to try
 * them in turn: a failover must still work while one region (maybe the one failing) is down. So
 * each call starts at a random endpoint (spreading load, never always the same region first)
 * and moves to the next on a failure that another endpoint may not have: timeouts, network
 * errors, 5xx, EndpointTemporarilyUnavailableException, throttling left after the SDK's
 * retries. A definitive answer (access denied, validation, unknown control, a safety rule's
 * ConflictException) is the same on every endpoint and stops at once.
 *
 * A group is the routing controls that send traffic to one application (one per region): never
 * all Off, or no region gets traffic. setStates takes every control of each group it changes, so
 * the refusal needs no read; it is made before any call.
 */
import {
  GetRoutingControlStateCommand,
  Route53RecoveryClusterClient,
  UpdateRoutingControlStatesCommand,
} from '@aws-sdk/client-route53-recovery-cluster';
import { MalformedResponseError } from './capacity.ts';
import { type ClientOptions, clientConfig, errorName } from './clients.ts';
import {
  type CallSite,
  explainCallError,
  finishClient,
  RoutingCallError,
  RoutingInputError,
  RoutingRefusedError,
  requireEntries,
  requireMatch,
  requireText,
} from './routing-common.ts';

export type ControlState = 'On' | 'Off';

/** One of the cluster's endpoints, as DescribeCluster lists them (ClusterEndpoints). */
export interface ClusterEndpoint {
  /** 'https://host-aaaaaa.route53-recovery-cluster.us-west-2.amazonaws.com/v1' */
  url: string;
  region: string;
}

export interface ControlGroup {
  /** Named in refusals, e.g. 'chat-api'. */
  name: string;
  /** The state of every routing control of the group, by ARN. */
  states: Readonly<Record<string, ControlState>>;
}

export interface RoutingControlsPort {
  /** Sets every control of the groups in one UpdateRoutingControlStates; refuses a group left all Off. */
  setStates(groups: readonly ControlGroup[]): Promise<void>;
  /** Each control's state, by ARN (GetRoutingControlState per control). */
  states(arns: readonly string[]): Promise<Record<string, ControlState>>;
}

const CONTROL_ARN =
  /^arn:aws[a-z-]*:route53-recovery-control::\d{12}:controlpanel\/[\w-]+\/routingcontrol\/[\w-]+$/;
const CONTROL_EXAMPLE =
  'arn:aws:route53-recovery-control::123456789012:controlpanel/abc123/routingcontrol/def456';
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** Answers every endpoint would give alike: trying the next one cannot help. */
const DEFINITIVE = new Set([
  'AccessDeniedException',
  'ValidationException',
  'ResourceNotFoundException',
  'ConflictException',
  'ServiceLimitExceededException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'CredentialsProviderError',
  'DeadlineExceeded',
]);

/** The endpoints checked, or RoutingInputError naming the field (at construction: fails fast). */
export function checkedEndpoints(endpoints: readonly ClusterEndpoint[]): ClusterEndpoint[] {
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new RoutingInputError(
      'clusterEndpoints is empty: give the cluster endpoints DescribeCluster lists',
    );
  }
  return endpoints.map((e, i) => {
    const url = requireText(e?.url, `clusterEndpoints[${i}].url`);
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new RoutingInputError(
        `clusterEndpoints[${i}].url is ${JSON.stringify(url)}, which is not an http(s) URL`,
      );
    }
    return { url, region: requireMatch(e.region, `clusterEndpoints[${i}].region`, REGION, 'us-west-2') };
  });
}

/** The update's entries, refusing a group left all Off or a control given two states. Pure. */
export function controlEntries(groups: readonly ControlGroup[]) {
  if (!Array.isArray(groups) || groups.length === 0)
    throw new RoutingInputError('groups is empty: give at least one');
  const chosen = new Map<string, ControlState>();
  groups.forEach((group, i) => {
    const name = requireText(group?.name, `groups[${i}].name`);
    const entries = requireEntries(group.states, `groups[${i}].states`);
    for (const [arn, state] of entries) {
      requireMatch(arn, `groups[${i}].states: a routing control ARN`, CONTROL_ARN, CONTROL_EXAMPLE);
      if (state !== 'On' && state !== 'Off') {
        throw new RoutingInputError(
          `groups[${i}].states["${arn}"] is ${JSON.stringify(state)}; it must be "On" or "Off"`,
        );
      }
      if (chosen.has(arn) && chosen.get(arn) !== state) {
        throw new RoutingInputError(`routing control ${arn} is both On and Off in groups`);
      }
      chosen.set(arn, state);
    }
    if (entries.every(([, s]) => s === 'Off')) {
      throw new RoutingRefusedError(
        `refusing to turn every routing control of group "${name}" Off (${entries.map(([a]) => a).join(', ')}): traffic must go somewhere; leave at least one On`,
      );
    }
  });
  return [...chosen].map(([RoutingControlArn, RoutingControlState]) => ({
    RoutingControlArn,
    RoutingControlState,
  }));
}

/** The cluster's clients, one per endpoint (URL and region), built like clients.ts builds every client. */
export function arcClusterClients(
  options: ClientOptions,
): (endpoint: ClusterEndpoint) => Route53RecoveryClusterClient {
  const cache = new Map<string, Route53RecoveryClusterClient>();
  return (e) => {
    const key = `${e.region} ${e.url}`;
    let client = cache.get(key);
    if (!client) {
      client = finishClient(
        options,
        new Route53RecoveryClusterClient({ ...clientConfig(options, e.region), endpoint: e.url }),
      );
      cache.set(key, client);
    }
    return client;
  };
}

export interface ArcOptions {
  /** In [0, 1): picks the first endpoint tried; Math.random by default, fixed in tests. */
  random?: () => number;
}

export function arcRoutingControls(
  clientFor: (endpoint: ClusterEndpoint) => Route53RecoveryClusterClient,
  clusterEndpoints: readonly ClusterEndpoint[],
  options: ArcOptions = {},
): RoutingControlsPort {
  const endpoints = checkedEndpoints(clusterEndpoints);
  const random = options.random ?? Math.random;

  /** `call` on each endpoint in turn from a random one, until one answers or one answers definitively. */
  async function onSomeEndpoint<T>(
    site: CallSite,
    call: (c: Route53RecoveryClusterClient) => Promise<T>,
  ): Promise<T> {
    const start = Math.max(0, Math.min(endpoints.length - 1, Math.floor(random() * endpoints.length)));
    const failures: string[] = [];
    let last: unknown;
    for (let k = 0; k < endpoints.length; k++) {
      const endpoint = endpoints[(start + k) % endpoints.length]!;
      try {
        return await call(clientFor(endpoint));
      } catch (error) {
        if (DEFINITIVE.has(errorName(error))) throw explainCallError(error, site);
        failures.push(`${endpoint.region}: ${errorName(error) || 'Error'}`);
        last = error;
      }
    }
    throw new RoutingCallError(
      `${site.action} on ${site.what} failed on all ${endpoints.length} cluster endpoints (${failures.join('; ')}): check the cluster endpoints (aws route53-recovery-control-config describe-cluster) and the network`,
      'AllEndpointsFailed',
      last,
    );
  }

  const site = (action: string, arns: readonly string[]): CallSite => ({
    action: `route53-recovery-cluster:${action}`,
    resource: arns.length === 1 ? arns[0]! : `${arns.length} routing controls (${arns.join(', ')})`,
    what: arns.length === 1 ? `routing control ${arns[0]}` : `routing controls ${arns.join(', ')}`,
    notFoundFix: 'check the routing control ARNs (aws route53-recovery-control-config list-routing-controls)',
  });

  return {
    async setStates(groups) {
      const UpdateRoutingControlStateEntries = controlEntries(groups);
      const arns = UpdateRoutingControlStateEntries.map((e) => e.RoutingControlArn);
      await onSomeEndpoint(site('UpdateRoutingControlStates', arns), (c) =>
        c.send(new UpdateRoutingControlStatesCommand({ UpdateRoutingControlStateEntries })),
      );
    },
    async states(arns) {
      if (!Array.isArray(arns) || arns.length === 0)
        throw new RoutingInputError('arns is empty: name at least one routing control');
      for (const [i, a] of arns.entries()) requireMatch(a, `arns[${i}]`, CONTROL_ARN, CONTROL_EXAMPLE);
      const found: Record<string, ControlState> = {};
      for (const RoutingControlArn of arns) {
        const out = await onSomeEndpoint(site('GetRoutingControlState', [RoutingControlArn]), (c) =>
          c.send(new GetRoutingControlStateCommand({ RoutingControlArn })),
        );
        const state = out.RoutingControlState;
        if (state !== 'On' && state !== 'Off') {
          throw new MalformedResponseError(
            `GetRoutingControlState of ${RoutingControlArn}: RoutingControlState is ${JSON.stringify(state)}`,
          );
        }
        found[RoutingControlArn] = state;
      }
      return found;
    },
  };
}
