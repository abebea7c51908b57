/**
 * Route 53 ARC routing controls, read only, through the cluster's data plane: each control's
 * state (GetRoutingControlState), the cluster endpoints checked, and the endpoint rotation both the
 * reads and ./routing-arc.ts's update use. The failover health evaluation reads the states every
 * evaluation (issue 18: reconcile, don't remember); only GetRoutingControlState is sent here.
 *
 * A cluster answers on five regional endpoints. ARC's guidance for static stability is to try
 * them in turn: each call starts at a random endpoint and moves to the next on a failure another
 * endpoint may not have (timeouts, network errors, 5xx, EndpointTemporarilyUnavailableException,
 * throttling left after the SDK's retries); a definitive answer (access denied, validation, unknown
 * control, a safety rule's ConflictException) is the same on every endpoint and stops at once.
 *
 * Cluster endpoints are taken only on AWS's own domains, in the endpoint's own region
 * (https://host-aaaaaa.route53-recovery-cluster.us-west-2.amazonaws.com/v1, or the partition's
 * suffix: amazonaws.com.cn, amazonaws.eu, c2s.ic.gov, ...): the calls are signed with the
 * function's credentials, and a policy or an execution input naming another host would send them
 * there (issue 18, item 3). Tests aimed at a local server pass `acceptEndpoint`.
 */
import {
  GetRoutingControlStateCommand,
  Route53RecoveryClusterClient,
} from '@aws-sdk/client-route53-recovery-cluster';
import { isClusterHost } from '../policy/arc-endpoints.ts';
import { MalformedResponseError } from './capacity.ts';
import { type ClientOptions, clientConfig, errorName } from './clients.ts';
import {
  type CallSite,
  explainCallError,
  finishClient,
  RoutingCallError,
  RoutingInputError,
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

export const CONTROL_ARN =
  /^arn:aws[a-z-]*:route53-recovery-control::\d{12}:controlpanel\/[\w-]+\/routingcontrol\/[\w-]+$/;
export const CONTROL_EXAMPLE =
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

export { isClusterHost } from '../policy/arc-endpoints.ts';

export interface EndpointCheck {
  /** Accepts a cluster endpoint's URL in its region; AWS's own cluster domains by default. */
  acceptEndpoint?: (url: URL, region: string) => boolean;
}

/** The endpoints checked, or RoutingInputError naming the field (at construction: fails fast). */
export function checkedEndpoints(
  endpoints: readonly ClusterEndpoint[],
  check: EndpointCheck = {},
): ClusterEndpoint[] {
  const accept = check.acceptEndpoint ?? isClusterHost;
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
    const region = requireMatch(e.region, `clusterEndpoints[${i}].region`, REGION, 'us-west-2');
    if (!accept(new URL(url), region)) {
      throw new RoutingInputError(
        `clusterEndpoints[${i}].url is ${JSON.stringify(url)}, which is not an ARC cluster endpoint of AWS in ${region} (https://host-aaaaaa.route53-recovery-cluster.${region}.amazonaws.com/v1, as DescribeCluster lists them): refusing to send signed calls there`,
      );
    }
    return { url, region };
  });
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

export interface ArcOptions extends EndpointCheck {
  /** In [0, 1): picks the first endpoint tried; Math.random by default, fixed in tests. */
  random?: () => number;
}

/**
 * `call` on each endpoint in turn from a random one (`random` in [0, 1)), until one answers or one
 * answers definitively.
 */
export async function onSomeEndpoint<T>(
  endpoints: readonly ClusterEndpoint[],
  clientFor: (endpoint: ClusterEndpoint) => Route53RecoveryClusterClient,
  random: () => number,
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

export const controlSite = (action: string, arns: readonly string[]): CallSite => ({
  action: `route53-recovery-cluster:${action}`,
  resource: arns.length === 1 ? arns[0]! : `${arns.length} routing controls (${arns.join(', ')})`,
  what: arns.length === 1 ? `routing control ${arns[0]}` : `routing controls ${arns.join(', ')}`,
  notFoundFix: 'check the routing control ARNs (aws route53-recovery-control-config list-routing-controls)',
});

export interface ControlReadsPort {
  /** Each control's state, by ARN (GetRoutingControlState per control). */
  states(arns: readonly string[]): Promise<Record<string, ControlState>>;
}

export function arcControlReads(
  clientFor: (endpoint: ClusterEndpoint) => Route53RecoveryClusterClient,
  clusterEndpoints: readonly ClusterEndpoint[],
  options: ArcOptions = {},
): ControlReadsPort {
  const endpoints = checkedEndpoints(clusterEndpoints, options);
  const random = options.random ?? Math.random;
  return {
    async states(arns) {
      if (!Array.isArray(arns) || arns.length === 0)
        throw new RoutingInputError('arns is empty: name at least one routing control');
      for (const [i, a] of arns.entries()) requireMatch(a, `arns[${i}]`, CONTROL_ARN, CONTROL_EXAMPLE);
      const found: Record<string, ControlState> = {};
      for (const RoutingControlArn of arns) {
        const out = await onSomeEndpoint(
          endpoints,
          clientFor,
          random,
          controlSite('GetRoutingControlState', [RoutingControlArn]),
          (c) => c.send(new GetRoutingControlStateCommand({ RoutingControlArn })),
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
