/**
 * The variant fallback of one sagemaker-variant target with capacityMix.variantFallback, once per
 * run, after its plan (docs/variant-fallback.md): read the FALLBACK item and the endpoint ->
 * decideFallback -> write (active mode, kill switch off, and only what the decision writes:
 * never while the endpoint is not InService) -> store the next state -> the record's part.
 *
 * Order, so state says only what the endpoint has: the FALLBACK item is stored after the write
 * succeeded (or when there was nothing to write), on condition of the version read. A busy or
 * failed write stores nothing: the next run decides again from the state before. Shadow mode and
 * the kill switch decide and record, write nothing and store nothing (the next run decides from
 * the real endpoint again, so a shadow shift is recorded every run the shortage lasts).
 */
import type { StoredFallback } from '../../shared/aws/fallback-store.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import {
  type FallbackState,
  initialFallbackState,
  type VariantWrite,
} from '../../shared/mix/fallback-types.ts';
import { decideFallback } from '../../shared/mix/variant-fallback.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { type Pending, pendingWindowMs } from '../../shared/state/pending.ts';
import type { FallbackRecord, FallbackWrite, MixRunContext } from './record.ts';

type SageMakerVariant = Extract<TargetPolicy, { kind: 'sagemaker-variant' }>;

const failed = (detail: string): FallbackRecord => ({
  action: null,
  reasons: [],
  message: '',
  detail,
  write: 'failed',
  ok: false,
  stored: 'not-written',
  endpointStatus: null,
  before: [],
  after: null,
  state: null,
});

async function writeOf(
  ctx: MixRunContext,
  t: SageMakerVariant,
  writes: VariantWrite[] | null,
): Promise<{ write: FallbackWrite; detail: string }> {
  if (!writes) return { write: 'none', detail: 'nothing to write' };
  if (ctx.withheld === 'shadow')
    return { write: 'shadow', detail: 'shadow mode (GOVERNOR_MODE): the endpoint is not written' };
  if (ctx.withheld === 'kill-switch')
    return { write: 'killed', detail: 'the kill switch is on: the endpoint is not written' };
  try {
    const out = await ctx.ports.endpoints.write(t.region, t.endpointName, writes);
    if (out.status === 'busy') return { write: 'busy', detail: `${out.message}: the next run decides again` };
    return { write: 'applied', detail: `weights and instance counts of ${t.endpointName} set` };
  } catch (error) {
    return { write: 'failed', detail: `the endpoint was not written: ${errorText(error)}` };
  }
}

async function storeOf(
  ctx: MixRunContext,
  t: SageMakerVariant,
  stored: StoredFallback | null,
  next: FallbackState,
): Promise<FallbackRecord['stored']> {
  if (JSON.stringify(stored?.state ?? initialFallbackState()) === JSON.stringify(next)) return 'unchanged';
  return ctx.ports.fallbacks.put(t.id, next, stored?.version ?? 0);
}

/**
 * The instances the target needs beyond what DescribeEndpoint shows: SageMaker rolls a failed
 * update back, so the primary's DesiredInstanceCount falls back to what it had. The evaluator's
 * pending change while it counts as pending (pendingWindowMs), and the forecast floor's current
 * step; decideFallback takes the primary's desired count as a minimum. Pending 8 at t-60 s, floor
 * 6: 8; pending older than the window: 6.
 */
export function fallbackNeed(
  t: TargetPolicy,
  pending: Pending | undefined,
  floorNow: number | undefined,
  now: number,
): number {
  const fresh = pending && now - pending.at < pendingWindowMs(t) ? pending.desiredCapacity : 0;
  return Math.max(fresh, floorNow ?? 0);
}

/** `needed`: fallbackNeed(). */
export async function fallbackTarget(
  ctx: MixRunContext,
  t: SageMakerVariant,
  needed: number,
): Promise<FallbackRecord> {
  const policy = t.capacityMix?.variantFallback;
  if (!policy) throw new Error(`${t.id} has no variantFallback`);
  let stored: StoredFallback | null;
  let view: Awaited<ReturnType<MixRunContext['ports']['endpoints']['read']>>;
  try {
    stored = await ctx.ports.fallbacks.get(t.id);
    view = await ctx.ports.endpoints.read(t.region, t.endpointName);
  } catch (error) {
    return failed(`not decided: ${errorText(error)}`);
  }
  const before = stored?.state ?? initialFallbackState();
  const d = decideFallback(
    view,
    needed,
    before,
    { primary: t.variantName, variants: policy.variants, holdMinutes: policy.holdMinutes },
    ctx.now,
  );
  const { write, detail } = await writeOf(ctx, t, d.writes);
  let saved: FallbackRecord['stored'] = 'not-written';
  let storeDetail = '';
  if ((write === 'applied' || write === 'none') && ctx.withheld === null) {
    try {
      saved = await storeOf(ctx, t, stored, d.state);
    } catch (error) {
      storeDetail = `; the FALLBACK item was not written (${errorText(error)}): the next run decides again from the state before`;
    }
  }
  const inForce = saved === 'written' || saved === 'unchanged' ? d.state : before;
  return {
    action: d.action,
    reasons: d.reasons,
    message: d.message,
    detail: `${detail}; state ${saved}${storeDetail}`,
    write,
    ok: write !== 'failed' && storeDetail === '',
    stored: saved,
    endpointStatus: view.status,
    before: view.variants,
    after: d.writes,
    state: inForce,
  };
}
