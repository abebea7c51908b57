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
 * The reads, the endpoint rotation and the check that endpoints are AWS's own cluster domains are
 * in ./routing-arc-read.ts (the failover health evaluation imports that module alone).
 *
 * A group is the routing controls that send traffic to one application (one per region): never
 * all Off, or no region gets traffic. setStates takes every control of each group it changes, so
 * the refusal needs no read; it is made before any call.
 */
import {
  type Route53RecoveryClusterClient,
  UpdateRoutingControlStatesCommand,
} from '@aws-sdk/client-route53-recovery-cluster';
import {
  type ArcOptions,
  arcControlReads,
  type ClusterEndpoint,
  CONTROL_ARN,
  CONTROL_EXAMPLE,
  type ControlState,
  checkedEndpoints,
  controlSite,
  onSomeEndpoint,
} from './routing-arc-read.ts';
import {
  RoutingInputError,
  RoutingRefusedError,
  requireEntries,
  requireMatch,
  requireText,
} from './routing-common.ts';

export {
  type ArcOptions,
  arcClusterClients,
  type ClusterEndpoint,
  type ControlState,
  checkedEndpoints,
  isClusterHost,
} from './routing-arc-read.ts';

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

export function arcRoutingControls(
  clientFor: (endpoint: ClusterEndpoint) => Route53RecoveryClusterClient,
  clusterEndpoints: readonly ClusterEndpoint[],
  options: ArcOptions = {},
): RoutingControlsPort {
  const endpoints = checkedEndpoints(clusterEndpoints, options);
  const random = options.random ?? Math.random;
  const reads = arcControlReads(clientFor, endpoints, options);
  return {
    async setStates(groups) {
      const UpdateRoutingControlStateEntries = controlEntries(groups);
      const arns = UpdateRoutingControlStateEntries.map((e) => e.RoutingControlArn);
      await onSomeEndpoint(
        endpoints,
        clientFor,
        random,
        controlSite('UpdateRoutingControlStates', arns),
        (c) => c.send(new UpdateRoutingControlStatesCommand({ UpdateRoutingControlStateEntries })),
      );
    },
    states: (arns) => reads.states(arns),
  };
}
