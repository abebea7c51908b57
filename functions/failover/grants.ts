/**
 * The stack's routing grants held against the policy's failover groups, pure (issue 18: the
 * stack scopes the act function's routing rights with parameters, FailoverHostedZoneId,
 * FailoverRecordNames, FailoverRecordTypes, FailoverRoutingControlArns and
 * FailoverEndpointGroupArns, and nothing checked they match the policy, so a mismatch showed
 * only as AccessDenied on the first route step of an incident). The failover function runs this
 * every minute on the policy it reads (the policy may change in SSM without a redeploy) and
 * reports each mismatch: one error line naming the group, the field, the parameter and the fix,
 * and RoutingGrantMismatch by GroupId (the routing-grants alarm).
 *
 * Route 53's condition key compares record names normalized: lower case, no trailing dot, any
 * character but a-z, 0-9, '-', '_' and '.' as a three-digit octal escape ('*' is \052); the
 * policy's recordName is normalized so before it is looked up (grantName).
 */
import type { ResolvedGroup } from '../../shared/failover/group.ts';

/** The grants as the stack gives them to the functions (config.ts); a list absent: not known, not checked. */
export interface RoutingGrants {
  hostedZoneId?: string;
  recordNames?: readonly string[];
  recordTypes?: readonly string[];
  routingControlArns?: readonly string[];
  endpointGroupArns?: readonly string[];
}

export interface GrantProblem {
  groupId: string;
  /** The policy field out of the grants: routing.recordName, routing.routingControls.us-east-1. */
  field: string;
  message: string;
}

/** A record name as route53:ChangeResourceRecordSetsNormalizedRecordNames holds it: '*.Example.com.' -> '\052.example.com'. */
export function grantName(name: string): string {
  const decoded = name.replace(/\\(\d{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
  const bare = (decoded.endsWith('.') ? decoded.slice(0, -1) : decoded).toLowerCase();
  return bare.replace(/[^a-z0-9_.-]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

const shown = (list: readonly string[]) => (list.length > 0 ? list.join(',') : 'empty');

/** Each field of each group that the stack's grants do not cover, in group order. */
export function grantProblems(groups: readonly ResolvedGroup[], grants: RoutingGrants): GrantProblem[] {
  const out: GrantProblem[] = [];
  const add = (groupId: string, field: string, message: string) =>
    out.push({ groupId, field, message: `group ${groupId}: routing.${field} ${message}` });
  for (const g of groups) {
    const r = g.routing;
    if (r.kind === 'route53-weighted') {
      if (grants.hostedZoneId !== undefined && grants.hostedZoneId !== r.hostedZoneId)
        add(
          g.id,
          'hostedZoneId',
          `${r.hostedZoneId} is not the stack's FailoverHostedZoneId (${grants.hostedZoneId || 'empty'}): the act function may change records of that zone only, so every route step would be AccessDenied; update the stack with FailoverHostedZoneId=${r.hostedZoneId}`,
        );
      const name = grantName(r.recordName);
      if (grants.recordNames && !grants.recordNames.includes(name))
        add(
          g.id,
          'recordName',
          `${r.recordName} (as IAM compares it, ${name}) is not in the stack's FailoverRecordNames (${shown(grants.recordNames)}): its route steps would be AccessDenied; add ${name} to FailoverRecordNames`,
        );
      if (grants.recordTypes && !grants.recordTypes.includes(r.recordType))
        add(
          g.id,
          'recordType',
          `${r.recordType} is not in the stack's FailoverRecordTypes (${shown(grants.recordTypes)}): its route steps would be AccessDenied; add ${r.recordType} to FailoverRecordTypes`,
        );
    }
    const arns =
      r.kind === 'arc-routing-controls'
        ? {
            map: r.routingControls,
            list: grants.routingControlArns,
            field: 'routingControls',
            param: 'FailoverRoutingControlArns',
          }
        : r.kind === 'global-accelerator'
          ? {
              map: r.endpointGroups,
              list: grants.endpointGroupArns,
              field: 'endpointGroups',
              param: 'FailoverEndpointGroupArns',
            }
          : null;
    if (!arns?.list) continue;
    for (const [region, arn] of Object.entries(arns.map))
      if (!arns.list.includes(arn))
        add(
          g.id,
          `${arns.field}.${region}`,
          `${arn} is not in the stack's ${arns.param}: its route steps would be AccessDenied; add it to ${arns.param}`,
        );
  }
  return out;
}
