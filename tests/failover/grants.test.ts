/**
 * The stack's routing grants held against the policy's failover groups (functions/failover/grants.ts):
 * each routing kind's fields against the parameter that scopes it, names compared as Route 53's
 * condition key normalizes them, lists the function was not given left unchecked.
 */
import { describe, expect, it } from 'vitest';
import { grantName, grantProblems, type RoutingGrants } from '#functions/failover/grants.ts';
import type { ResolvedGroup } from '#shared/failover/group.ts';

const ARC = 'arn:aws:route53-recovery-control::123456789012:controlpanel/abc/routingcontrol/';
const GA = 'arn:aws:globalaccelerator::123456789012:accelerator/a1/listener/l1/endpoint-group/';
const group = (id: string, routing: unknown) => ({ id, routing }) as unknown as ResolvedGroup;
const r53 = (recordName: string, recordType = 'A') =>
  group('chat', {
    kind: 'route53-weighted',
    hostedZoneId: 'Z0123456789ABC',
    recordName,
    recordType,
    setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
  });
const arc = group('arc', {
  kind: 'arc-routing-controls',
  routingControls: { 'us-east-1': `${ARC}e1`, 'us-west-2': `${ARC}w2` },
  clusterEndpoints: [],
});
const ga = group('ga', {
  kind: 'global-accelerator',
  listenerArn: 'arn:aws:globalaccelerator::123456789012:accelerator/a1/listener/l1',
  endpointGroups: { 'us-east-1': `${GA}e1`, 'us-west-2': `${GA}w2` },
});
const ALL: RoutingGrants = {
  hostedZoneId: 'Z0123456789ABC',
  recordNames: ['chat.example.com', '\\052.example.com'],
  recordTypes: ['A', 'AAAA'],
  routingControlArns: [`${ARC}e1`, `${ARC}w2`],
  endpointGroupArns: [`${GA}e1`, `${GA}w2`],
};
const fields = (groups: ResolvedGroup[], grants: RoutingGrants) =>
  grantProblems(groups, grants).map((p) => `${p.groupId}:${p.field}`);

describe('grantName', () => {
  it.each([
    ['chat.example.com', 'chat.example.com'],
    ['Chat.Example.COM.', 'chat.example.com'],
    ['*.example.com', '\\052.example.com'],
    ['\\052.example.com.', '\\052.example.com'],
    ['my_svc-1.example.com', 'my_svc-1.example.com'],
  ])('%s is %s as IAM compares it', (name, normalized) => {
    expect(grantName(name)).toBe(normalized);
  });
});

describe('grantProblems', () => {
  it('grants that cover every group: none', () => {
    expect(fields([r53('Chat.example.com.'), r53('*.example.com', 'AAAA'), arc, ga], ALL)).toEqual([]);
  });

  it.each([
    { case: 'another zone', grants: { ...ALL, hostedZoneId: 'Z999' }, want: ['chat:hostedZoneId'] },
    { case: 'no zone at all', grants: { ...ALL, hostedZoneId: '' }, want: ['chat:hostedZoneId'] },
    {
      case: 'the name missing',
      grants: { ...ALL, recordNames: ['api.example.com'] },
      want: ['chat:recordName'],
    },
    { case: 'the type missing', grants: { ...ALL, recordTypes: ['AAAA'] }, want: ['chat:recordType'] },
    {
      case: 'one routing control missing',
      grants: { ...ALL, routingControlArns: [`${ARC}e1`] },
      want: ['arc:routingControls.us-west-2'],
    },
    {
      case: 'no endpoint groups',
      grants: { ...ALL, endpointGroupArns: [] },
      want: ['ga:endpointGroups.us-east-1', 'ga:endpointGroups.us-west-2'],
    },
  ])('$case: $want', ({ grants, want }) => {
    expect(fields([r53('chat.example.com'), arc, ga], grants)).toEqual(want);
  });

  it('names the group, the field, the parameter and the fix in one line', () => {
    expect(grantProblems([r53('*.example.com')], { ...ALL, recordNames: [] })[0]!.message).toBe(
      "group chat: routing.recordName *.example.com (as IAM compares it, \\052.example.com) is not in the stack's FailoverRecordNames (empty): its route steps would be AccessDenied; add \\052.example.com to FailoverRecordNames",
    );
  });

  it('a grant the function was not given is not checked', () => {
    expect(fields([r53('chat.example.com'), arc, ga], {})).toEqual([]);
  });
});
