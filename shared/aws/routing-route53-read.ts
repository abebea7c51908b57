/**
 * Route 53 weighted records, read only: the records of one weighted group (one name and type,
 * one set identifier per region) and their weights. The failover health evaluation reads them
 * every evaluation to compare with the planner's intent (issue 18: reconcile, don't remember);
 * ./routing-route53.ts reads them too before it writes. Only ListResourceRecordSets is sent here,
 * so a role that imports this module alone needs only that read.
 *
 * Route 53's API is global: the client is signed for us-east-1 whatever the stack's region.
 */

import {
  ListResourceRecordSetsCommand,
  type ResourceRecordSet,
  Route53Client,
  RRType,
} from '@aws-sdk/client-route-53';
import { appendAll } from '../arrays/extent.ts';
import { MalformedResponseError } from './capacity.ts';
import { type ClientOptions, clientConfig } from './clients.ts';
import {
  type CallSite,
  calling,
  finishClient,
  RoutingInputError,
  RoutingRefusedError,
  requireMatch,
  requireText,
} from './routing-common.ts';

/** The region Route 53's global endpoint is signed for in the aws partition. */
export const ROUTE53_REGION = 'us-east-1';

/** The Route 53 client, built like clients.ts builds every client (timeouts, retries, deadline). */
export const route53Client = (options: ClientOptions, region = ROUTE53_REGION): Route53Client =>
  finishClient(options, new Route53Client(clientConfig(options, region)));

export interface WeightedGroup {
  /** 'Z0123456789ABC' (a leading '/hostedzone/' is accepted). */
  hostedZoneId: string;
  /** The records' name, e.g. 'api.example.com' (trailing dot optional, any case). */
  name: string;
  type: RRType;
}

/** Weights by set identifier, each a whole number from 0 to 255. */
export type Weights = Record<string, number>;

/** ListResourceRecordSets pages (300 records each) read at most for one group: 3,000 records. */
const MAX_PAGES = 10;
const ZONE_ID = /^(\/hostedzone\/)?[A-Z0-9]{1,32}$/;
const RECORD_TYPES = new Set<string>(Object.values(RRType));

/** 'API.example.com' and 'api.example.com.' alike; Route 53's octal escapes ('\052' for '*') decoded. */
export const normalName = (name: string): string => {
  const decoded = name.replace(/\\(\d{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
  return (decoded.endsWith('.') ? decoded : `${decoded}.`).toLowerCase();
};

const zoneIdOf = (id: string) => id.replace(/^\/hostedzone\//, '');

/** The group's fields checked and normalized, or RoutingInputError naming the field. */
export function checkedGroup(group: WeightedGroup): WeightedGroup {
  const hostedZoneId = zoneIdOf(requireMatch(group?.hostedZoneId, 'hostedZoneId', ZONE_ID, 'Z0123456789ABC'));
  const name = normalName(requireText(group.name, 'name', 1024));
  const type = requireText(group.type, 'type') as RRType;
  if (!RECORD_TYPES.has(type)) {
    throw new RoutingInputError(
      `type is ${JSON.stringify(type)}; it must be one of ${[...RECORD_TYPES].join(', ')}`,
    );
  }
  return { hostedZoneId, name, type };
}

export const label = (g: WeightedGroup) => `${g.name} ${g.type} in hosted zone ${g.hostedZoneId}`;
export const zoneArn = (g: WeightedGroup) => `arn:aws:route53:::hostedzone/${g.hostedZoneId}`;

/** The records of one group as Route 53 lists them, by set identifier (pure: for tests too). */
export function groupOf(
  records: readonly ResourceRecordSet[],
  group: WeightedGroup,
): Map<string, ResourceRecordSet> {
  const found = new Map<string, ResourceRecordSet>();
  for (const r of records) {
    if (!r.Name || normalName(r.Name) !== group.name || r.Type !== group.type) continue;
    const id = r.SetIdentifier;
    if (!id)
      throw new RoutingRefusedError(
        `${label(group)} has a record without a set identifier: it is not a weighted group`,
      );
    found.set(id, r);
  }
  return found;
}

export const weightsOf = (records: Map<string, ResourceRecordSet>): Weights =>
  Object.fromEntries([...records].map(([id, r]) => [id, r.Weight ?? 0]));

/** The call site of a read or write of the group, for its one-line failure (routing-common.ts). */
export const recordsSite = (g: WeightedGroup, action: string): CallSite => ({
  action: `route53:${action}`,
  resource: zoneArn(g),
  what: `the weighted records ${label(g)}`,
  notFoundFix: 'check hostedZoneId (Route 53 console, or aws route53 list-hosted-zones)',
});

/** Every record of the group: pages from its name and type until the listing passes them. */
export async function readGroup(
  client: Route53Client,
  g: WeightedGroup,
): Promise<Map<string, ResourceRecordSet>> {
  const records: ResourceRecordSet[] = [];
  let cursor: { StartRecordIdentifier?: string } = {};
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await calling(recordsSite(g, 'ListResourceRecordSets'), () =>
      client.send(
        new ListResourceRecordSetsCommand({
          HostedZoneId: g.hostedZoneId,
          StartRecordName: g.name,
          StartRecordType: g.type,
          ...cursor,
        }),
      ),
    );
    appendAll(records, out.ResourceRecordSets ?? []);
    const stillInGroup =
      out.IsTruncated &&
      out.NextRecordName &&
      normalName(out.NextRecordName) === g.name &&
      out.NextRecordType === g.type;
    if (!stillInGroup) return groupOf(records, g);
    if (!out.NextRecordIdentifier || out.NextRecordIdentifier === cursor.StartRecordIdentifier) {
      throw new MalformedResponseError(
        `ListResourceRecordSets of ${label(g)} did not move past set identifier ${cursor.StartRecordIdentifier ?? '(start)'}`,
      );
    }
    cursor = { StartRecordIdentifier: out.NextRecordIdentifier };
  }
  throw new MalformedResponseError(
    `${label(g)} still had records after ${MAX_PAGES} pages of ListResourceRecordSets`,
  );
}

export interface WeightReadsPort {
  /** The group's weights by set identifier. */
  weights(group: WeightedGroup): Promise<Weights>;
}

export const route53WeightReads = (client: Route53Client): WeightReadsPort => ({
  weights: async (group) => weightsOf(await readGroup(client, checkedGroup(group))),
});
