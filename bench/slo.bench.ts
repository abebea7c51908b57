/**
 * The error-budget control's cost per decision: one stepSlo (record a minute's SLI in the ledger,
 * read the budget over the fast, slow and 30-day windows, move the headroom) over a year of
 * minutes with a bad minute in every 150, beside decide() for the same target in the same
 * process, so the figure reads as a share of what the engine already costs; the forecast room's
 * cost the same way. Also the stored ledger's size after 30 days. Prints figures; never fails.
 */
import { decide } from '#shared/engine/decide.ts';
import type { EngineState, SignalSnapshot } from '#shared/engine/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import type { HeadroomState } from '#shared/slo/control.ts';
import { forecastRoom } from '#shared/slo/forecast-room.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { sloOf } from '#shared/slo/objective.ts';
import { stepSlo } from '#shared/slo/step.ts';

const MINUTE = 60_000;
const T0 = Date.parse('2025-01-01T00:00:00Z');
const N = 525_600;
const fmt = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });

const target = policyOrThrow({
  version: 1,
  targets: [
    {
      id: 'bench',
      kind: 'sagemaker-variant',
      region: 'us-east-1',
      endpointName: 'bench',
      scaling: { minCapacity: 1, maxCapacity: 200 },
      signals: [
        { metric: 'invocationsPerInstance', target: 75 },
        { metric: 'p95LatencyMs', sloMs: 2000 },
      ],
    },
  ],
}).targets[0]!;

function timeSlo(): { seconds: number; bytes: number } {
  const slo = sloOf(target);
  const control = slo.control!;
  const ledger = new SliLedger(control.fastWindowMinutes, slo.windowMinutes);
  let state: HeadroomState | undefined;
  let bytes = 0;
  const start = performance.now();
  for (let m = 0; m < N; m++) {
    const now = T0 + m * MINUTE;
    const sample = { minute: now / MINUTE - 2, good: m % 150 !== 0, requests: 1000 };
    state = stepSlo(ledger, state, [sample], { ...slo, control }, now).headroom.state;
    if (m === 30 * 1440) bytes = JSON.stringify(ledger.toJSON()).length;
  }
  return { seconds: (performance.now() - start) / 1000, bytes };
}

/** The forecast room (shared/slo/forecast-room.ts) over a year of minutes, its band moving each minute. */
function timeRoom(): { seconds: number; opened: number } {
  const control = sloOf(target).control!;
  const burn = { fastBurn: 0, slowBurn: 0 };
  const lead = { minutes: 10, configuredMinutes: 10 };
  let opened = 0;
  const start = performance.now();
  for (let m = 0; m < N; m++) {
    const bandRatio = 1 + 0.1 * (1 + Math.sin(m / 300));
    const room = forecastRoom({
      factor: 1,
      bandRatio,
      room: control.forecastRoom,
      writtenRoom: 1.6,
      burn,
      lead,
    });
    if (room.opened) opened++;
  }
  return { seconds: (performance.now() - start) / 1000, opened: opened / N };
}

function timeDecide(): number {
  let state: EngineState | undefined;
  let ready = 10;
  const start = performance.now();
  for (let m = 0; m < N; m++) {
    const now = T0 + m * MINUTE;
    const value = 60 + 30 * Math.sin(m / 200);
    const snap: SignalSnapshot = {
      capacity: { desired: ready, ready },
      readings: {
        invocationsPerInstance: { value, timestamp: now - 2 * MINUTE },
        p95LatencyMs: { value: 900, timestamp: now - 2 * MINUTE },
      },
    };
    const r = decide(state, snap, target, now);
    state = r.state;
    ready = r.decision.desiredCapacity;
  }
  return (performance.now() - start) / 1000;
}

export function run(): void {
  timeSlo(); // warm up
  const engine = timeDecide();
  const slo = timeSlo();
  console.log(`decide(): ${fmt(N / engine)} decisions/s (${fmt((engine / N) * 1e6, 2)} us each)`);
  console.log(
    `stepSlo(): ${fmt(N / slo.seconds)} steps/s (${fmt((slo.seconds / N) * 1e6, 2)} us each), ${fmt((slo.seconds / engine) * 100, 1)} % of decide()'s cost on top of it`,
  );
  const room = timeRoom();
  console.log(
    `forecastRoom(): ${fmt(N / room.seconds)} decisions/s (${fmt((room.seconds / N) * 1e6, 3)} us each, open in ${fmt(room.opened * 100)} % of them), ${fmt((room.seconds / engine) * 100, 2)} % of decide()'s cost`,
  );
  console.log(`stored ledger after 30 days: ${fmt(slo.bytes)} bytes of JSON (DynamoDB's item limit: 400 KB)`);
}
