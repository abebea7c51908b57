/**
 * The storm of issue 11 (tests/interruptions/storm.ts): 500 interruption warnings within 2
 * minutes for one group, SQS batches of 100 with 50 duplicates and 40 foreign events, through
 * the spot-events handler on its real adapters (SDK clients mocked: no network). Prints, per
 * batch, the AWS API calls by action and the handler's time, then API calls per minute over the
 * storm. Prints figures; never fails.
 */
import { replayStorm, STORM_T0 } from '../tests/interruptions/storm.ts';

export async function run(): Promise<void> {
  const { batches } = await replayStorm();
  const sum = (c: Record<string, number>) => Object.values(c).reduce((s, n) => s + n, 0);
  console.log('batch  messages  new  calls  handler ms  by action');
  batches.forEach((b, i) => {
    const by = Object.entries(b.calls)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    console.log(
      `${String(i + 1).padStart(5)}  ${String(b.messages).padStart(8)}  ${String(b.newInstances).padStart(3)}  ${String(sum(b.calls)).padStart(5)}  ${b.handlerMs.toFixed(1).padStart(10)}  ${by}`,
    );
  });
  const total = batches.reduce((s, b) => s + sum(b.calls), 0);
  const minutes = (batches.at(-1)!.at - STORM_T0) / 60_000;
  console.log(
    `API calls: ${total} over ${minutes.toFixed(2)} min = ${(total / minutes).toFixed(1)} per minute`,
  );
  console.log(
    `handler time per batch: median ${[...batches.map((b) => b.handlerMs)].sort((a, b) => a - b)[Math.floor(batches.length / 2)]!.toFixed(1)} ms`,
  );
}
