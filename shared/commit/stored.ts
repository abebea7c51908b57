/**
 * The commitments read as stored in the state table (pk COMMIT#<region>, sk READ; written hourly
 * by the commitments function, read by the mix function): zod at the boundary, so an item of the
 * wrong shape is refused by name instead of planned on. Times epoch ms, rates USD per hour.
 */
import * as z from 'zod';
import type { ExistingCommitments } from './exists.ts';

const Ms = z.number().int().min(0);
const Count = z.number().int().min(0);

export const ExistingCommitmentsSchema = z
  .object({
    readAt: Ms,
    region: z.string().min(1),
    reservations: z.array(
      z
        .object({
          id: z.string(),
          instanceType: z.string(),
          zone: z.string().nullable(),
          count: Count,
          state: z.string(),
          start: Ms,
          end: Ms,
        })
        .strict(),
    ),
    capacityReservations: z.array(
      z
        .object({
          id: z.string(),
          instanceType: z.string(),
          zone: z.string(),
          total: Count,
          state: z.string(),
          end: Ms.nullable(),
          matching: z.enum(['open', 'targeted']),
        })
        .strict(),
    ),
    savingsPlans: z.array(
      z
        .object({
          id: z.string(),
          type: z.string(),
          state: z.string(),
          region: z.string().nullable(),
          family: z.string().nullable(),
          commitmentUsdPerHour: z.number().min(0),
          start: Ms,
          end: Ms,
          rates: z.record(z.string(), z.number().positive()),
        })
        .strict(),
    ),
  })
  .strict() satisfies z.ZodType<ExistingCommitments>;

export const commitPk = (region: string): string => `COMMIT#${region}`;
export const COMMIT_SK = 'READ';
