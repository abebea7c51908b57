/**
 * `governor validate` on the SLO fixtures in tests/policy/fixtures/slo/: each invalid file breaks
 * one rule of the slo section (shared/policy/slo-schema.ts, slo-rules.ts) and gets exactly its
 * line; the valid ones pass and say their objective. Every fixture has a case.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

const DIR = 'tests/policy/fixtures/slo';

const validate = (file: string) => runCli(['validate', file]);

const VALID: { file: string; out: string }[] = [
  {
    file: 'valid-default-objective.yaml',
    out: 'valid: 1 target: chat (sagemaker-variant, us-east-1, 1-10 instances, invocationsPerInstance+p95LatencyMs)',
  },
  {
    file: 'valid-requests-objective.yaml',
    out: 'valid: 1 target: chat (sagemaker-variant, us-east-1, 1-10 instances, invocationsPerInstance+p95LatencyMs, SLO 99.9 % of minutes and 99.5 % of requests within the SLO over 28 days)',
  },
];

const INVALID: { file: string; line: string }[] = [
  {
    file: 'invalid-factor-bounds.yaml',
    line: 'targets[0].slo.control.maxTargetFactor must be at least 1: it is the leanest the targets may go, and 1 is the policy as written; for more headroom lower minTargetFactor or the targets themselves',
  },
  {
    file: 'invalid-burst-window.yaml',
    line: 'targets[0].slo.control.burstFloor.windowMinutes must be at least 60: the floor is the demand of this many minutes at a high quantile, and less than an hour holds too few minutes to see the bursts it must cover',
  },
  {
    file: 'invalid-objective-of-one.yaml',
    line: 'targets[0].slo.objective.minutes must be at most 0.9999: an objective of 1 leaves no error budget, so any bad minute would break it; use 0.999 or 0.9999',
  },
  {
    file: 'invalid-objective-without-latency.yaml',
    line: 'targets[0].slo needs a p95LatencyMs (or p99LatencyMs) signal: its sloMs is the threshold every minute is judged against; add one, or remove slo',
  },
  {
    file: 'invalid-requests-without-request-signal.yaml',
    line: 'targets[0].slo.objective.requests needs the request count, which only an invocationsPerInstance signal reads: add one, or remove objective.requests and keep the minutes objective',
  },
  {
    file: 'invalid-window-under-a-day.yaml',
    line: 'targets[0].slo.windowDays must be at least 1: a window shorter than a day has too few minutes to budget (0.5 % of an hour is 0.3 minutes)',
  },
];

describe('SLO fixtures through governor validate', () => {
  it.each(VALID)('$file exits 0 and names its objective', async ({ file, out }) => {
    const result = await validate(`${DIR}/${file}`);
    expect(result).toMatchObject({ code: 0, err: [], out: [`${DIR}/${file}: ${out}`] });
  });

  it.each(INVALID)('$file exits 2 with one line naming the path and the fix', async ({ file, line }) => {
    const { code, out, err } = await validate(`${DIR}/${file}`);
    expect({ code, out, err }).toEqual({ code: 2, out: [], err: [`${DIR}/${file}: ${line}`] });
  });

  it('every fixture in the folder has a case here', () => {
    expect(readdirSync(DIR).sort()).toEqual(
      [...VALID.map((c) => c.file), ...INVALID.map((c) => c.file)].sort(),
    );
  });
});
