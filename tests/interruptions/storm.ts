/**
 * The storm of issue 11: 500 interruption warnings within 2 minutes for one group, delivered as
 * SQS batches of 100 with duplicates (50 warnings sent again later) and foreign events mixed in
 * (20 from another account, 10 from another region, 10 for instances of an unmanaged group).
 * Replayed through the spot-events handler on its real adapters (SDK clients mocked by
 * ./aws-fakes.ts); shared by tests/functions/spot-events-storm.test.ts and bench/storm.bench.ts.
 */

import { awsSpotEventsPorts } from '#functions/spot-events/ports.ts';
import { createSpotEventsHandler } from '#functions/spot-events/run.ts';
import type { SpotEventsResult } from '#functions/spot-events/types.ts';
import { createClients } from '#shared/aws/clients.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { type MixPlan, resolveMixPolicy } from '#shared/mix/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { ACCOUNT, fakeAws, GROUP, spotEventsConfig, spotPolicy, TABLE } from './aws-fakes.ts';
import { fixture, instance } from './harness.ts';

export const STORM_T0 = Date.parse('2026-01-05T12:00:00Z');
const WARNING = JSON.parse(fixture('spot-interruption-warning'));

const body = (n: number, ms: number, over: Record<string, unknown> = {}, id = `storm-${n}`) =>
  JSON.stringify({
    ...WARNING,
    id,
    time: new Date(ms).toISOString().replace('.000Z', 'Z'),
    resources: [],
    detail: { 'instance-id': instance(n), 'instance-action': 'terminate' },
    ...over,
  });

export interface StormMessage {
  messageId: string;
  body: string;
  at: number;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run is the same storm. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function stormMessages(seed = 11): StormMessage[] {
  const r = random(seed);
  const out: StormMessage[] = [];
  const at = () => STORM_T0 + Math.floor(r() * 120_000);
  for (let n = 0; n < 500; n++) {
    const t = at();
    out.push({ messageId: `w${n}`, body: body(n, t), at: t });
  }
  for (let k = 0; k < 50; k++) {
    const n = Math.floor(r() * 500);
    const t = at();
    // A duplicate is the same EventBridge event delivered again, a little later.
    out.push({ messageId: `d${k}`, body: body(n, t), at: Math.min(STORM_T0 + 120_000, t + 20_000) });
  }
  for (let k = 0; k < 20; k++)
    out.push({ messageId: `a${k}`, body: body(600 + k, at(), { account: '999999999999' }), at: at() });
  for (let k = 0; k < 10; k++)
    out.push({ messageId: `r${k}`, body: body(700 + k, at(), { region: 'eu-west-1' }), at: at() });
  for (let k = 0; k < 10; k++) out.push({ messageId: `u${k}`, body: body(800 + k, at()), at: at() });
  return out.sort((a, b) => a.at - b.at || a.messageId.localeCompare(b.messageId));
}

export interface BatchFigures {
  at: number;
  messages: number;
  newInstances: number;
  calls: Record<string, number>;
  handlerMs: number;
  result: SpotEventsResult;
}

/** The group: about 1,700 instances planned, its spot ones numbered 0.. (the warned 500 among them). */
export function stormSetup() {
  const policy = spotPolicy(2000);
  const mix = resolveMixPolicy(policyOrThrow(policy).targets[0]!)!;
  const flat = {
    points: Array.from({ length: 17 }, (_, i) => ({ at: STORM_T0 + i * 900_000, p50: 1200, p90: 1700 })),
  };
  const state = stepMix(initialMixState(), { forecast: flat }, mix, STORM_T0 - 3_600_000).state;
  const plan = state.plan as MixPlan;
  const members = new Map<string, string>();
  for (let n = 0; n < plan.capacity; n++) members.set(instance(n), GROUP);
  for (let k = 0; k < 10; k++) members.set(instance(800 + k), 'unmanaged-asg');
  const aws = fakeAws({ policy, members });
  aws.putItem({ pk: 'MIX#gpu', sk: 'PLAN', version: 1, state, updatedAt: 'x' });
  const run = createSpotEventsHandler({
    config: spotEventsConfig(),
    ports: awsSpotEventsPorts(
      createClients({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
      TABLE,
    ),
    telemetry: { info() {}, error() {}, decision() {}, count() {} },
  });
  return { aws, plan, run };
}

/** Delivers the storm in batches of `size`, each handled 1 s after its last message arrived. */
export async function replayStorm(
  size = 100,
): Promise<{ batches: BatchFigures[]; setup: ReturnType<typeof stormSetup> }> {
  const setup = stormSetup();
  const messages = stormMessages();
  const batches: BatchFigures[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < messages.length; i += size) {
    const batch = messages.slice(i, i + size);
    const now = batch.at(-1)!.at + 1_000;
    // New: a managed instance (numbered below 500) not named by an earlier batch.
    const named = batch
      .map((m) => JSON.parse(m.body))
      .filter((e) => e.account === ACCOUNT && e.region === 'us-east-1');
    const fresh = new Set(
      named
        .map((e) => e.detail['instance-id'] as string)
        .filter((i) => Number.parseInt(i.slice(2), 16) < 500 && !seen.has(i)),
    );
    for (const i of fresh) seen.add(i);
    setup.aws.reset();
    const started = performance.now();
    const result = await setup.run(
      { Records: batch.map(({ messageId, body }) => ({ messageId, body })) },
      now,
      {
        account: ACCOUNT,
      },
    );
    batches.push({
      at: now,
      messages: batch.length,
      newInstances: fresh.size,
      calls: setup.aws.calls(),
      handlerMs: performance.now() - started,
      result,
    });
  }
  return { batches, setup };
}
