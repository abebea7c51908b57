/**
 * The `failover` block of the policy file: groups of targets that serve the same model in
 * different regions, how traffic between them is routed, when a region counts as failed or
 * recovered, and how traffic moves. Cross-field rules live in ./failover-rules.ts; the pure
 * planner that reads these fields is shared/failover/.
 */
import * as z from 'zod';
import { isClusterHost } from './arc-endpoints.ts';

const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const region = () => z.string().regex(REGION, { message: 'must be an AWS region name such as us-east-1' });
const wholeMinutes = (min: number, max: number) => z.number().int().min(min).max(max);

/** Route 53 ARC routing controls: one per region, flipped through one of the cluster's endpoints. */
export const ArcRoutingSchema = z
  .object({
    kind: z.literal('arc-routing-controls'),
    routingControls: z
      .record(
        region(),
        z
          .string()
          .regex(
            /^arn:aws[a-z-]*:route53-recovery-control::\d{12}:controlpanel\/[a-z0-9]+\/routingcontrol\/[a-z0-9]+$/,
            {
              message:
                'must be a routing control ARN (arn:aws:route53-recovery-control::ACCOUNT:controlpanel/ID/routingcontrol/ID)',
            },
          ),
      )
      .describe('The routing control ARN of each member region, keyed by region.'),
    clusterEndpoints: z
      .array(
        z
          .object({
            region: region(),
            endpoint: z.string().regex(/^https:\/\/\S+$/, { message: 'must be an https:// URL' }),
          })
          .strict()
          .superRefine((e, ctx) => {
            // AWS's own cluster domains only: signed calls go there (./arc-endpoints.ts).
            if (!URL.canParse(e.endpoint) || isClusterHost(new URL(e.endpoint), e.region)) return;
            ctx.addIssue({
              code: 'custom',
              path: ['endpoint'],
              message: `must be an ARC cluster endpoint of AWS in ${e.region}, as DescribeCluster lists it (https://host-aaaaaa.route53-recovery-cluster.${e.region}.amazonaws.com/v1)`,
            });
          }),
      )
      .min(1, { message: 'needs at least one cluster endpoint' })
      .describe(
        "The ARC cluster's regional endpoints, tried in turn: routing control state is changed through the data plane, which keeps working when one Region does not.",
      ),
  })
  .strict();

/** Route 53 weighted records: one record set per region, sharing a name and type. */
export const Route53WeightedRoutingSchema = z
  .object({
    kind: z.literal('route53-weighted'),
    hostedZoneId: z
      .string()
      .regex(/^Z[A-Z0-9]{1,32}$/, { message: 'must be a hosted zone id such as Z0123456789ABCDEFGHIJ' }),
    recordName: z.string().min(1).describe('The record name every weighted record set shares.'),
    recordType: z.enum(['A', 'AAAA', 'CNAME']).default('A'),
    setIdentifiers: z
      .record(region(), z.string().min(1).max(128))
      .describe("Each member region's weighted record SetIdentifier, keyed by region."),
  })
  .strict();

/** Global Accelerator: one endpoint group per region under one listener; traffic dials move traffic. */
export const GlobalAcceleratorRoutingSchema = z
  .object({
    kind: z.literal('global-accelerator'),
    listenerArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:globalaccelerator::\d{12}:accelerator\/[a-z0-9-]+\/listener\/[a-z0-9]+$/, {
        message:
          'must be a Global Accelerator listener ARN (arn:aws:globalaccelerator::ACCOUNT:accelerator/ID/listener/ID)',
      }),
    endpointGroups: z
      .record(
        region(),
        z
          .string()
          .regex(
            /^arn:aws[a-z-]*:globalaccelerator::\d{12}:accelerator\/[a-z0-9-]+\/listener\/[a-z0-9]+\/endpoint-group\/[a-z0-9]+$/,
            {
              message: 'must be a Global Accelerator endpoint group ARN',
            },
          ),
      )
      .describe("Each member region's endpoint group ARN (under listenerArn), keyed by region."),
  })
  .strict();

export const FailoverRoutingSchema = z.discriminatedUnion('kind', [
  ArcRoutingSchema,
  Route53WeightedRoutingSchema,
  GlobalAcceleratorRoutingSchema,
]);
export const ROUTING_KINDS = FailoverRoutingSchema.options.map((o) => o.shape.kind.value);

export const FailoverHealthSchema = z
  .object({
    periodSeconds: z
      .number()
      .int()
      .positive({ message: 'must be a whole number of seconds greater than 0' })
      .default(60)
      .describe('Seconds in one health period; each period is breaching, healthy or unknown.'),
    failPeriods: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('N: a region fails when N of the last failWindowPeriods periods breach.'),
    failWindowPeriods: z
      .number()
      .int()
      .min(1)
      .max(60)
      .default(5)
      .describe('M: the window, in periods, that failPeriods are counted in.'),
    recoverPeriods: z
      .number()
      .int()
      .min(2)
      .max(1440)
      .default(15)
      .describe('A region has recovered after this many consecutive healthy periods (longer than M).'),
    staleAfterSeconds: z
      .number()
      .int()
      .positive({ message: 'must be a whole number of seconds greater than 0' })
      .default(180)
      .describe('A reading older than this is missing: its period is unknown, never breaching.'),
    errorRatePercent: z
      .number()
      .gt(0)
      .max(100)
      .default(5)
      .describe('A period breaches when the 5xx error rate is above this percent of requests.'),
    p95LatencyMs: z
      .number()
      .positive({ message: 'must be greater than 0' })
      .optional()
      .describe(
        'A period breaches when p95 latency is above this (ms). Absent: latency is not a health signal.',
      ),
    capacityErrors: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        'A period breaches when at least this many capacity errors (InsufficientCapacity) were seen in it.',
      ),
    heartbeatAgeSeconds: z
      .number()
      .int()
      .min(1)
      .default(300)
      .describe("A period breaches when the region's own Governor heartbeat is older than this (seconds)."),
  })
  .strict();

export const FailoverShiftSchema = z
  .object({
    stepsPercent: z
      .array(z.number().int().min(1).max(100))
      .min(1)
      .default([10, 50, 100])
      .describe(
        "Percent of the failed region's traffic moved at each step: strictly increasing, ending at 100.",
      ),
    checkMinutes: wholeMinutes(1, 120)
      .default(3)
      .describe('Minutes the receiving regions must stay healthy after a step before the next.'),
    prescaleTimeoutMinutes: wholeMinutes(1, 240)
      .default(10)
      .describe(
        'Minutes to wait for the standby to serve the demand before alarming StandbyCapacityUnavailable and keeping traffic where it is.',
      ),
    dwellMinutes: wholeMinutes(1, 10_080)
      .default(60)
      .describe(
        'Minutes after a failover starts before another may start, and after it completes before failback.',
      ),
  })
  .strict();

export const FailoverMemberSchema = z
  .object({
    targetId: z.string().min(1).describe('The id of a target in this file.'),
    role: z
      .enum(['primary', 'standby'])
      .optional()
      .describe('primary-standby groups only: exactly one primary; unmarked members are standbys.'),
    weight: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "active-active groups only: the member's percent of traffic when every region is healthy (they sum to 100).",
      ),
    warmFloor: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Standbys only: instances kept while healthy (0 = pilot light). Default the target's minCapacity; within its min and maxCapacity.",
      ),
  })
  .strict();

export const FailoverGroupSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
      message: 'must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit',
    }),
    mode: z
      .enum(['primary-standby', 'active-active'])
      .default('primary-standby')
      .describe(
        'primary-standby: one region serves, the others wait; active-active: every region serves its weight.',
      ),
    members: z.array(FailoverMemberSchema).min(2, { message: 'needs at least two members' }),
    routing: FailoverRoutingSchema,
    health: FailoverHealthSchema.default(FailoverHealthSchema.parse({})),
    rtoMinutes: wholeMinutes(1, 1440)
      .default(20)
      .describe(
        'Recovery time objective: detection + prescale timeout + checks between steps must fit in it.',
      ),
    shift: FailoverShiftSchema.default(FailoverShiftSchema.parse({})),
  })
  .strict();

export const FailoverSchema = z
  .object({
    groups: z.array(FailoverGroupSchema).min(1, { message: 'needs at least one group' }),
  })
  .strict();

export type FailoverRouting = z.infer<typeof FailoverRoutingSchema>;
export type FailoverRoutingKind = FailoverRouting['kind'];
export type FailoverHealthPolicy = z.infer<typeof FailoverHealthSchema>;
export type FailoverShiftPolicy = z.infer<typeof FailoverShiftSchema>;
export type FailoverMember = z.infer<typeof FailoverMemberSchema>;
export type FailoverGroup = z.infer<typeof FailoverGroupSchema>;
export type FailoverPolicy = z.infer<typeof FailoverSchema>;
