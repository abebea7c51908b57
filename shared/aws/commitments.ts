/**
 * What is really committed in a region, read from EC2 and Savings Plans for the commitments
 * function (functions/commitments, hourly): Reserved Instances (DescribeReservedInstances: one
 * page, no pagination in the API), capacity reservations (DescribeCapacityReservations, paged) of
 * the types asked for, active ones only, and the account's active Savings Plans
 * (DescribeSavingsPlans, paged) with each plan's lowest rate per type asked for in the region
 * (DescribeSavingsPlanRates, paged; a plan whose rates fail to read keeps none, and the check
 * names it). The SDK output is converted by small pure functions that reject a missing field
 * instead of reading it as zero. A failed call throws one line naming the IAM action.
 *
 * The Savings Plans API is global: its client is the us-east-1 endpoint whatever the region read.
 */
import {
  type CapacityReservation,
  DescribeCapacityReservationsCommand,
  DescribeReservedInstancesCommand,
  type EC2Client,
  type ReservedInstances,
} from '@aws-sdk/client-ec2';
import {
  DescribeSavingsPlanRatesCommand,
  DescribeSavingsPlansCommand,
  type SavingsPlan,
  type SavingsPlanRate,
  type SavingsplansClient,
} from '@aws-sdk/client-savingsplans';
import { appendAll } from '../arrays/extent.ts';
import type {
  CapacityReservationRead,
  ExistingCommitments,
  ReservedRead,
  SavingsPlanRead,
} from '../commit/exists.ts';
import { MalformedResponseError } from './capacity.ts';
import { errorName } from './clients.ts';

export interface CommitmentsPort {
  /** What exists in `region` for `types`, read at `now` (epoch ms). */
  read(region: string, types: readonly string[], now: number): Promise<ExistingCommitments>;
}

export class CommitmentsCallError extends Error {
  override name = 'CommitmentsCallError';
}

/** At most this many pages of one list: 1,000 capacity reservations or plans a page is far beyond a fleet's. */
const MAX_PAGES = 20;

const need = <T>(value: T | undefined | null, what: string): T => {
  if (value === undefined || value === null) throw new MalformedResponseError(`${what} is missing`);
  return value;
};

const ms = (d: Date | undefined, what: string): number => {
  const t = need(d, what).getTime();
  if (!Number.isFinite(t)) throw new MalformedResponseError(`${what} is not a time`);
  return t;
};

const whole = (n: number | undefined, what: string): number => {
  const v = need(n, what);
  if (!Number.isInteger(v) || v < 0) throw new MalformedResponseError(`${what} is not a whole count: ${v}`);
  return v;
};

export function reservedFrom(r: ReservedInstances): ReservedRead {
  const id = need(r.ReservedInstancesId, 'ReservedInstances.ReservedInstancesId');
  const what = (f: string) => `ReservedInstances ${id} ${f}`;
  return {
    id,
    instanceType: need(r.InstanceType, what('InstanceType')),
    zone: r.Scope === 'Region' ? null : need(r.AvailabilityZone, what('AvailabilityZone')),
    count: whole(r.InstanceCount, what('InstanceCount')),
    state: need(r.State, what('State')),
    start: ms(r.Start, what('Start')),
    end: ms(r.End, what('End')),
  };
}

export function capacityReservationFrom(c: CapacityReservation): CapacityReservationRead {
  const id = need(c.CapacityReservationId, 'CapacityReservation.CapacityReservationId');
  const what = (f: string) => `CapacityReservation ${id} ${f}`;
  return {
    id,
    instanceType: need(c.InstanceType, what('InstanceType')),
    zone: need(c.AvailabilityZone, what('AvailabilityZone')),
    total: whole(c.TotalInstanceCount, what('TotalInstanceCount')),
    state: need(c.State, what('State')),
    end: c.EndDateType === 'unlimited' || c.EndDate === undefined ? null : ms(c.EndDate, what('EndDate')),
    matching: c.InstanceMatchCriteria === 'targeted' ? 'targeted' : 'open',
  };
}

/** A Savings Plan's fields (its times and commitment are strings in this API) and its rates. */
export function savingsPlanFrom(p: SavingsPlan, rates: Record<string, number>): SavingsPlanRead {
  const id = need(p.savingsPlanId, 'SavingsPlan.savingsPlanId');
  const what = (f: string) => `SavingsPlan ${id} ${f}`;
  const commitment = Number(need(p.commitment, what('commitment')));
  if (!(commitment >= 0))
    throw new MalformedResponseError(`${what('commitment')} is not a number: ${p.commitment}`);
  return {
    id,
    type: need(p.savingsPlanType, what('savingsPlanType')),
    state: need(p.state, what('state')),
    region: p.region ?? null,
    family: p.ec2InstanceFamily ?? null,
    commitmentUsdPerHour: commitment,
    start: ms(new Date(need(p.start, what('start'))), what('start')),
    end: ms(new Date(need(p.end, what('end'))), what('end')),
    rates,
  };
}

/** The lowest hourly rate per instance type among a plan's rates (instanceType in `properties`). */
export function lowestRates(rates: readonly SavingsPlanRate[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rates) {
    const type = r.properties?.find((x) => x.name === 'instanceType')?.value;
    const rate = Number(r.rate);
    if (type === undefined || r.unit !== 'Hrs' || !(rate > 0)) continue;
    out[type] = Math.min(out[type] ?? Number.POSITIVE_INFINITY, rate);
  }
  return out;
}

const failed = (action: string, region: string, error: unknown) =>
  new CommitmentsCallError(
    `${action} in ${region} failed (${errorName(error)}): grant the commitments function ${action}, or check the region`,
  );

async function pages<T>(first: (token: string | undefined) => Promise<{ items: T[]; next?: string }>) {
  const out: T[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { items, next } = await first(token);
    appendAll(out, items);
    if (!next) return out;
    token = next;
  }
  return out;
}

async function planRates(sp: SavingsplansClient, id: string, region: string, types: readonly string[]) {
  try {
    const rates = await pages(async (nextToken) => {
      const r = await sp.send(
        new DescribeSavingsPlanRatesCommand({
          savingsPlanId: id,
          filters: [
            { name: 'region', values: [region] },
            { name: 'instanceType', values: [...types] },
          ],
          ...(nextToken && { nextToken }),
        }),
      );
      return { items: r.searchResults ?? [], ...(r.nextToken && { next: r.nextToken }) };
    });
    return lowestRates(rates);
  } catch {
    return {};
  }
}

export function commitmentsAdapter(
  ec2For: (region: string) => EC2Client,
  savingsPlans: SavingsplansClient,
): CommitmentsPort {
  return {
    async read(region, types, now) {
      const ec2 = ec2For(region);
      const filters = [
        { Name: 'instance-type', Values: [...types] },
        { Name: 'state', Values: ['active'] },
      ];
      const reserved = await ec2
        .send(new DescribeReservedInstancesCommand({ Filters: filters }))
        .catch((e: unknown) => Promise.reject(failed('ec2:DescribeReservedInstances', region, e)));
      const capacity = await pages(async (NextToken) => {
        const r = await ec2
          .send(
            new DescribeCapacityReservationsCommand({
              Filters: filters,
              MaxResults: 1000,
              ...(NextToken && { NextToken }),
            }),
          )
          .catch((e: unknown) => Promise.reject(failed('ec2:DescribeCapacityReservations', region, e)));
        return { items: r.CapacityReservations ?? [], ...(r.NextToken && { next: r.NextToken }) };
      });
      const plans = await pages(async (nextToken) => {
        const r = await savingsPlans
          .send(new DescribeSavingsPlansCommand({ states: ['active'], ...(nextToken && { nextToken }) }))
          .catch((e: unknown) => Promise.reject(failed('savingsplans:DescribeSavingsPlans', region, e)));
        return { items: r.savingsPlans ?? [], ...(r.nextToken && { next: r.nextToken }) };
      });
      const savingsPlansRead: SavingsPlanRead[] = [];
      for (const p of plans) {
        const id = need(p.savingsPlanId, 'SavingsPlan.savingsPlanId');
        savingsPlansRead.push(savingsPlanFrom(p, await planRates(savingsPlans, id, region, types)));
      }
      return {
        readAt: now,
        region,
        reservations: (reserved.ReservedInstances ?? []).map(reservedFrom),
        capacityReservations: capacity.map(capacityReservationFrom),
        savingsPlans: savingsPlansRead,
      };
    },
  };
}
