/**
 * The values of the SageMaker variant fallback (./variant-fallback.ts decides): its reason
 * codes, the endpoint as DescribeEndpoint shows it, the policy it reads, the state the shell
 * stores (FALLBACK items, shared/aws/fallback-store.ts), the decision, and the FailureReason
 * matcher that tells a capacity failure from the others. docs/variant-fallback.md is the prose.
 */
import * as z from 'zod';

/** A real-time production variant keeps at least one instance. */
export const FALLBACK_MINIMUM = 1;

export const FALLBACK_REASON_CODES = [
  // hold
  'EndpointNotInService',
  'PrimaryMissing',
  'UnlistedVariantServing',
  'PrimaryServing',
  'NoShortfall',
  'ShiftRateHold',
  'NoFallbackAvailable',
  'FallbackHeld',
  'ReturnInProgress',
  'ReturnFailed',
  'NothingServing',
  // shift
  'PrimaryCapacityShortage',
  'FallbackCapacityShortage',
  // return
  'HoldElapsed',
  'ReturnCompleted',
] as const;
export type FallbackReasonCode = (typeof FALLBACK_REASON_CODES)[number];

/** One production variant as DescribeEndpoint (and its endpoint config, for the type) shows it. */
export interface VariantView {
  variantName: string;
  /** From the endpoint config; null when unknown. */
  instanceType: string | null;
  currentInstances: number;
  desiredInstances: number;
  currentWeight: number;
}

/** A FailureReason that says capacity could not be had. `key` tells one failure from the next. */
export interface CapacityFailure {
  key: string;
  /** The type the message names, when it names one. */
  instanceType: string | null;
  message: string;
}

export interface EndpointView {
  status: string;
  variants: VariantView[];
  capacityFailure: CapacityFailure | null;
}

export interface FallbackPolicy {
  /** The target's own variant. */
  primary: string;
  variants: readonly { variantName: string; instanceType: string }[];
  holdMinutes: number;
}

export const FallbackStateSchema = z
  .object({
    version: z.literal(1),
    /** The fallback holding capacity, or null when all of it is on the primary. */
    active: z
      .object({
        variantName: z.string().min(1),
        instanceType: z.string().min(1),
        /** When the shift was written (the hold clock). */
        since: z.number(),
        /** Instances asked of the fallback: fewer desired after a run means it was rolled back. */
        instances: z.number().int().min(1),
        /** When the capacity was asked back on the primary (null: not yet). */
        returningSince: z.number().nullable(),
        /** The primary's DesiredInstanceCount the return asked for. */
        returnTo: z.number().int().min(0).nullable(),
      })
      .strict()
      .nullable(),
    lastShiftAt: z.number().nullable(),
    /** Instance type -> when a capacity failure of it was seen; types failed within holdMinutes are skipped. */
    failedTypes: z.record(z.string(), z.number()),
    /** The key of the last capacity failure counted, so one FailureReason is counted once. */
    seenFailure: z.string().nullable(),
  })
  .strict();
export type FallbackState = z.infer<typeof FallbackStateSchema>;

export const initialFallbackState = (): FallbackState => ({
  version: 1,
  active: null,
  lastShiftAt: null,
  failedTypes: {},
  seenFailure: null,
});

/** One variant of the single UpdateEndpointWeightsAndCapacities call. */
export interface VariantWrite {
  variantName: string;
  desiredInstances: number;
  desiredWeight: number;
}

export interface FallbackDecision {
  action: 'hold' | 'shift' | 'return';
  reasons: FallbackReasonCode[];
  message: string;
  /** Every listed variant of the endpoint, or null: no write. */
  writes: VariantWrite[] | null;
  state: FallbackState;
}

const CAPACITY_PATTERNS = [
  /InsufficientInstanceCapacity/i,
  /Unable to provision requested ML compute capacity/i,
  /(insufficient|not have sufficient)\b.*\bcapacity/i,
];

/**
 * A DescribeEndpoint FailureReason that says the instances could not be had, or null. Quotas
 * (ResourceLimitExceeded) and health checks are not capacity: another type does not fix them.
 * tests/mix/variant-fallback.test.ts pins it on real-looking messages.
 */
export function capacityFailureOf(reason: string | null | undefined, key: string): CapacityFailure | null {
  if (!reason || !CAPACITY_PATTERNS.some((p) => p.test(reason))) return null;
  if (/ResourceLimitExceeded|service limit|quota/i.test(reason)) return null;
  return { key, instanceType: reason.match(/\bml\.[a-z0-9-]+\.[a-z0-9]+\b/)?.[0] ?? null, message: reason };
}
