/**
 * Route 53 weighted records: the weights of a group of records with one name and type, one set
 * identifier per region, set in one ChangeResourceRecordSets batch and read back.
 *
 * The batch is UPSERTs of the records as ListResourceRecordSets returned them with only Weight
 * replaced, so TTL, values, alias target and health check id stay as they are; Route 53 applies
 * a batch all or nothing. Only records whose weight changes are sent; nothing changing is no
 * write at all. Refused before any write: a set identifier the group does not have, a record of
 * the group that is not weighted or belongs to a traffic policy, and weights that would all be
 * zero (Route 53 would then answer every record equally, health or not: traffic must always go
 * somewhere on purpose).
 *
 * Between the read and the UPSERT another writer could change a record's other fields, and the
 * UPSERT would put back what was read; the failover shell is the only writer of these records.
 *
 * Route 53's API is global: the client is signed for us-east-1 whatever the stack's region.
 */

import {
  ChangeResourceRecordSetsCommand,
  GetChangeCommand,
  type ResourceRecordSet,
  type Route53Client,
} from '@aws-sdk/client-route-53';
import { MalformedResponseError } from './capacity.ts';
import {
  calling,
  RoutingRefusedError,
  requireEntries,
  requireMatch,
  requireNumber,
  requireText,
} from './routing-common.ts';
import {
  checkedGroup,
  label,
  readGroup,
  recordsSite,
  type WeightedGroup,
  type Weights,
  weightsOf,
} from './routing-route53-read.ts';

export {
  checkedGroup,
  groupOf,
  normalName,
  ROUTE53_REGION,
  route53Client,
  type WeightedGroup,
  type Weights,
} from './routing-route53-read.ts';

export type ChangeStatus = 'PENDING' | 'INSYNC';

export interface WeightChange {
  /** The change's id ('C2682N5HXP0BZ4'), or null when every weight already was as asked. */
  changeId: string | null;
  /** INSYNC once every Route 53 server answers with it (after the optional wait). */
  status: ChangeStatus;
  /** The whole group's weights read back after the change. */
  weights: Weights;
}

export interface WaitOptions {
  /** GetChange calls at most; 12 x 5 s covers Route 53's usual 60 s to propagate. */
  polls: number;
  intervalMs: number;
}

export const DEFAULT_WAIT: WaitOptions = { polls: 12, intervalMs: 5_000 };

export interface WeightedRecordsPort {
  /** The group's weights by set identifier. */
  weights(group: WeightedGroup): Promise<Weights>;
  /** Sets the named weights in one batch (others keep theirs); waits for INSYNC when `wait` is given. */
  setWeights(group: WeightedGroup, weights: Readonly<Weights>, wait?: WaitOptions): Promise<WeightChange>;
  /** Polls GetChange until INSYNC or `polls` calls; PENDING then (a value, not an error). */
  waitInSync(changeId: string, wait?: WaitOptions): Promise<ChangeStatus>;
}

const CHANGE_ID = /^(\/change\/)?[A-Za-z0-9]{1,32}$/;

/** The weights checked: set identifiers of 1-128 characters, whole weights from 0 to 255. */
export function checkedWeights(weights: Readonly<Weights>): [string, number][] {
  return requireEntries(weights, 'weights').map(([id, w]) => [
    requireText(id, 'weights: a set identifier', 128),
    requireNumber(w, `weights["${id}"]`, 0, 255, true),
  ]);
}

/**
 * The UPSERTs that set `weights`, refused when a set identifier is missing, a record is not a
 * plain weighted one, or the group's weights would all be zero. Pure.
 */
export function weightChanges(
  group: WeightedGroup,
  records: Map<string, ResourceRecordSet>,
  weights: readonly [string, number][],
): ResourceRecordSet[] {
  if (records.size === 0) throw new RoutingRefusedError(`there is no weighted record ${label(group)}`);
  const known = [...records.keys()].join(', ');
  const next = new Map([...records].map(([id, r]) => [id, r.Weight]));
  for (const [id, weight] of weights) {
    const record = records.get(id);
    if (!record) {
      throw new RoutingRefusedError(
        `${label(group)} has no record with set identifier "${id}" (it has: ${known})`,
      );
    }
    if (record.TrafficPolicyInstanceId) {
      throw new RoutingRefusedError(
        `record "${id}" of ${label(group)} belongs to traffic policy instance ${record.TrafficPolicyInstanceId}: change it there`,
      );
    }
    if (typeof record.Weight !== 'number') {
      throw new RoutingRefusedError(
        `record "${id}" of ${label(group)} has no weight: it is not a weighted record`,
      );
    }
    next.set(id, weight);
  }
  if ([...next.values()].every((w) => w === 0 || w === undefined)) {
    throw new RoutingRefusedError(
      `refusing to set every weight of ${label(group)} to 0 (${known}): traffic must go somewhere; give at least one record a weight above 0`,
    );
  }
  return weights
    .filter(([id, weight]) => records.get(id)!.Weight !== weight)
    .map(([id, Weight]) => ({ ...records.get(id)!, Weight }));
}

const statusOf = (status: unknown): ChangeStatus => {
  if (status === 'PENDING' || status === 'INSYNC') return status;
  throw new MalformedResponseError(`Route 53 ChangeInfo.Status is ${JSON.stringify(status)}`);
};

const changeSite = (Id: string) => ({
  action: 'route53:GetChange',
  resource: `arn:aws:route53:::change/${Id}`,
  what: `change ${Id}`,
  notFoundFix: 'check the change id: Route 53 keeps changes for a while only',
});

export interface Route53Options {
  /** How waitInSync waits between polls (tests pass one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
}

export function route53WeightedRecords(
  client: Route53Client,
  options: Route53Options = {},
): WeightedRecordsPort {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const read = (g: WeightedGroup) => readGroup(client, g);
  const site = recordsSite;
  async function waitInSync(changeId: string, wait = DEFAULT_WAIT): Promise<ChangeStatus> {
    const Id = requireMatch(changeId, 'changeId', CHANGE_ID, 'C2682N5HXP0BZ4').replace(/^\/change\//, '');
    const polls = requireNumber(wait.polls, 'wait.polls', 1, 120, true);
    const intervalMs = requireNumber(wait.intervalMs, 'wait.intervalMs', 0, 60_000, true);
    for (let poll = 1; ; poll++) {
      const out = await calling(changeSite(Id), () => client.send(new GetChangeCommand({ Id })));
      const status = statusOf(out.ChangeInfo?.Status);
      if (status === 'INSYNC' || poll >= polls) return status;
      await sleep(intervalMs);
    }
  }

  return {
    weights: async (group) => weightsOf(await read(checkedGroup(group))),
    waitInSync,
    async setWeights(group, weights, wait) {
      const g = checkedGroup(group);
      const wanted = checkedWeights(weights);
      const before = await read(g);
      const changes = weightChanges(g, before, wanted);
      if (changes.length === 0) return { changeId: null, status: 'INSYNC', weights: weightsOf(before) };
      const out = await calling(site(g, 'ChangeResourceRecordSets'), () =>
        client.send(
          new ChangeResourceRecordSetsCommand({
            HostedZoneId: g.hostedZoneId,
            ChangeBatch: {
              Comment: `Governor failover: ${wanted.map(([id, w]) => `${id}=${w}`).join(', ')}`,
              Changes: changes.map((ResourceRecordSet) => ({ Action: 'UPSERT', ResourceRecordSet })),
            },
          }),
        ),
      );
      const changeId = (out.ChangeInfo?.Id ?? '').replace(/^\/change\//, '');
      if (!changeId) throw new MalformedResponseError('ChangeResourceRecordSets ChangeInfo.Id is missing');
      let status = statusOf(out.ChangeInfo?.Status);
      if (wait && status === 'PENDING') status = await waitInSync(changeId, wait);
      return { changeId, status, weights: weightsOf(await read(g)) };
    },
  };
}
