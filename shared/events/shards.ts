/**
 * Shards: several evaluator schedules, each evaluating its share of the policy's targets, for
 * a deployment with more targets than one invocation gets through (docs/scale.md). A shard's
 * tick carries `detail.shard` ({ index, count }); its targets are those whose id hashes to
 * index modulo count. Every target is in exactly one shard, and the same one on every tick and
 * in every container, with no list to keep: adding a target to the policy places it.
 *
 * Changing `count` moves targets between shards; for the minute it takes to redeploy, a target
 * may be evaluated by two shards (the claim's version condition lets one change through, and a
 * change within 0.75 of a period of the last is deferred) or by none (the next tick does it).
 * Alarm events carry no shard: an alarm evaluates the target it names, whichever shard has it.
 *
 * Example: count 4, "chat-llm": FNV-1a 0x6e0d981d = 1,846,384,669, mod 4 = 1, so shard 1;
 * tests/scale/shards.test.ts pins a table of ids to shards, so a change of hash cannot pass
 * unnoticed (it would move every target between shards on deploy).
 */
import * as z from 'zod';
import type { TargetPolicy } from '../policy/schema.ts';

/** More shards than this is a typo: 64 shards of ~500 targets are 32,000 targets. */
export const MAX_SHARDS = 64;

export const ShardSchema = z
  .object({
    index: z.number().int().min(0),
    count: z.number().int().min(1).max(MAX_SHARDS),
  })
  .strict()
  .refine((s) => s.index < s.count, { message: 'index must be below count', path: ['index'] });

export type Shard = z.infer<typeof ShardSchema>;

/** 32-bit FNV-1a of the id's UTF-16 code units: stable across runtimes, no dependency. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export const shardOf = (targetId: string, count: number): number => hashId(targetId) % count;

/** The targets of one shard, in policy order. */
export function inShard<T extends Pick<TargetPolicy, 'id'>>(targets: readonly T[], shard: Shard): T[] {
  return targets.filter((t) => shardOf(t.id, shard.count) === shard.index);
}

/**
 * The shard a raw tick names in detail.shard: null when it names none (the one schedule of an
 * unsharded deployment); a message naming the field when it names one badly.
 */
export function shardOfTick(raw: unknown): { shard: Shard | null } | { problem: string } {
  const detail = (raw as { detail?: unknown } | null)?.detail;
  if (typeof detail !== 'object' || detail === null || !('shard' in detail)) return { shard: null };
  const parsed = ShardSchema.safeParse((detail as { shard: unknown }).shard);
  if (parsed.success) return { shard: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = ['detail', 'shard', ...issue.path.map(String)].join('.');
  return { problem: `event field ${field} is invalid: ${issue.message}` };
}
