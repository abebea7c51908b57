/**
 * `governor history --target ID --policy FILE --days N --out FILE.csv [--end ISO] [--region R]
 * [--gaps interpolate|zero] [--request-timeout S]`: a deployed target's demand from CloudWatch,
 * written as a trace the backtest reads, with a sidecar note (FILE.md) saying what was read and
 * what was made up.
 *
 * The clock is read once. Everything is checked before the first AWS call: options, the policy,
 * the target, --out, the window against CloudWatch's retention. Then one GetMetricData per span
 * (shared/history/plan.ts), and the pure core builds the minutes, fills the gaps and renders.
 */
import { basename } from 'node:path';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import * as z from 'zod';
import { clientConfig, HISTORY_TIMEOUTS } from '../aws/clients.ts';
import { cloudWatchHistory } from '../aws/demand-history.ts';
import { explainAwsError, isUsageProblem } from '../history/aws-errors.ts';
import { buildHistory, type History } from '../history/build.ts';
import { GAP_FILLS } from '../history/gaps.ts';
import { renderNote } from '../history/note.ts';
import { floorTo, type HistoryPlan, MAX_HISTORY_DAYS, MINUTE_MS, planHistory } from '../history/plan.ts';
import { readSpans } from '../history/read.ts';
import { doneLine, renderCsv, reportLines, utc } from '../history/render.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { describeSources } from '../signals/demand.ts';
import { planOutput, readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { parseOptions } from './options.ts';

export const OPTIONS = {
  target: { type: 'string' },
  policy: { type: 'string' },
  days: { type: 'string' },
  out: { type: 'string' },
  end: { type: 'string' },
  region: { type: 'string' },
  gaps: { type: 'string' },
  'request-timeout': { type: 'string' },
} as const;

/**
 * The most --request-timeout takes, in seconds: 10 minutes per attempt (4 attempts, 40 minutes)
 * is past any answer worth waiting for, and refuses a value given in milliseconds by mistake.
 */
const MAX_REQUEST_TIMEOUT_S = 600;

const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const quoted = (input: unknown) => JSON.stringify(String(input));

/** The options as the command uses them; each message is the one line the operator sees. */
const OptionsSchema = z.object({
  target: z.string({ error: '--target ID is required: the id of a target in the policy file' }).min(1),
  policy: z.string({ error: '--policy FILE is required: the policy file that names the target' }).min(1),
  days: z
    .string({ error: `--days N is required: how many days of history to read (1 to ${MAX_HISTORY_DAYS})` })
    .regex(/^\d+$/, {
      error: (i) =>
        `--days must be a whole number of days from 1 to ${MAX_HISTORY_DAYS}, got ${quoted(i.input)}`,
    })
    .transform(Number)
    .refine((d) => d >= 1, { error: `--days must be 1 or more (whole days, up to ${MAX_HISTORY_DAYS})` })
    .refine((d) => d <= MAX_HISTORY_DAYS, {
      error: (i) =>
        `--days ${i.input} is more than CloudWatch keeps: at most ${MAX_HISTORY_DAYS} days (at one-hour periods)`,
    }),
  out: z
    .string({ error: '--out FILE.csv is required: where to write the trace (the note goes beside it)' })
    .regex(/\.csv$/i, {
      error: (i) =>
        `--out must name a .csv file (the note is written beside it as NAME.md), got ${quoted(i.input)}`,
    }),
  end: z
    .string()
    .regex(ISO_WITH_ZONE, {
      error: (i) =>
        `--end must be an ISO time with its zone, such as 2025-06-09T12:00Z, got ${quoted(i.input)}`,
    })
    .transform((s) => Date.parse(s))
    .refine(Number.isFinite, { error: '--end is not a real time: check the date' })
    .optional(),
  region: z
    .string()
    .regex(REGION, {
      error: (i) => `--region must be an AWS region name such as us-east-1, got ${quoted(i.input)}`,
    })
    .optional(),
  gaps: z
    .enum(GAP_FILLS, { error: (i) => `--gaps must be interpolate or zero, got ${quoted(i.input)}` })
    .default('interpolate'),
  'request-timeout': z
    .string()
    .regex(/^\d+(\.\d+)?$/, {
      error: (i) => `--request-timeout must be a number of seconds, such as 120, got ${quoted(i.input)}`,
    })
    .transform(Number)
    .refine((s) => s > 0 && s <= MAX_REQUEST_TIMEOUT_S, {
      error: (i) =>
        `--request-timeout must be more than 0 and at most ${MAX_REQUEST_TIMEOUT_S} seconds, got ${quoted(i.input)}`,
    })
    .default(HISTORY_TIMEOUTS.requestTimeout / 1000),
});

export type HistoryOptions = z.infer<typeof OptionsSchema>;

export function parseHistoryArgs(args: string[]): HistoryOptions {
  const { values, positionals } = parseOptions({ args, allowPositionals: true, options: OPTIONS });
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${quoted(positionals[0])}; run governor history --help`);
  const parsed = OptionsSchema.safeParse(values);
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]!.message);
  return parsed.data;
}

async function loadTarget(policyFile: string, id: string, cwd: string): Promise<TargetPolicy> {
  const result = parsePolicyText(await readInput(policyFile, 'policy', cwd));
  if (!result.ok) {
    const more =
      result.problems.length > 1 ? ` (and ${result.problems.length - 1} more: run governor validate)` : '';
    throw new UsageError(`--policy ${policyFile}: ${formatProblem(result.problems[0]!)}${more}`);
  }
  const found = result.policy.targets.find((t) => t.id === id);
  if (!found) {
    const ids = result.policy.targets.map((t) => t.id).join(', ');
    throw new UsageError(`--target ${id} is not in ${policyFile}; its targets are ${ids}`);
  }
  return found;
}

/** The spans to read, or a usage error naming the fix: an --end after now, or days past 455 back. */
function planWindow(options: HistoryOptions, now: number) {
  const end = floorTo(options.end ?? now, MINUTE_MS);
  if (end > now)
    throw new UsageError(`--end ${utc(end)} is after now (${utc(now)}): history cannot be read ahead`);
  const planned = planHistory({ now, end, days: options.days });
  if (planned.ok) return planned;
  const when = options.end === undefined ? '' : ` with --end ${utc(end)}`;
  const fix =
    planned.maxDays > 0
      ? `use --days ${planned.maxDays} or fewer`
      : `--end is more than ${MAX_HISTORY_DAYS} days ago: CloudWatch keeps nothing older`;
  throw new UsageError(`--days ${options.days}${when}: ${planned.message}: ${fix}`);
}

const notePathOf = (csv: string) => csv.replace(/\.csv$/i, '.md');

/** Everything checked before the first AWS call. */
interface Job {
  options: HistoryOptions;
  target: TargetPolicy;
  region: string;
  plan: HistoryPlan;
  now: number;
  notePath: string;
}

async function prepare(args: string[], io: CliIo, now: number): Promise<Job> {
  const options = parseHistoryArgs(args);
  const target = await loadTarget(options.policy, options.target, io.cwd);
  const notePath = notePathOf(options.out);
  await planOutput(options.out, { flag: 'out', what: 'a .csv file' }, io.cwd);
  await planOutput(notePath, { flag: 'out', what: 'a .csv file whose .md note is not a folder' }, io.cwd);
  const { plan } = planWindow(options, now);
  return { options, target, region: options.region ?? target.region, plan, now, notePath };
}

/**
 * The spans read and built into a history, or the one line saying why not (exit 1). Credential,
 * permission and region problems are the operator's to fix: a UsageError (exit 2). An endpoint
 * that does not answer, or answers too slowly, is a run that could not finish (exit 1).
 */
async function readHistory(job: Job): Promise<History | string> {
  const { target, region, plan } = job;
  const endpoint = process.env.AWS_ENDPOINT_URL || undefined;
  const requestTimeoutMs = job.options['request-timeout'] * 1000;
  const timeouts = { ...HISTORY_TIMEOUTS, requestTimeout: requestTimeoutMs };
  const clientFor = (r: string) =>
    new CloudWatchClient(clientConfig({ region: r, timeouts, ...(endpoint ? { endpoint } : {}) }, r));
  let read: Awaited<ReturnType<typeof readSpans>>;
  try {
    read = await readSpans(cloudWatchHistory(clientFor), target, region, plan);
  } catch (error) {
    const problem = explainAwsError(error, { region, requestTimeoutMs, ...(endpoint ? { endpoint } : {}) });
    if (isUsageProblem(problem)) throw new UsageError(problem.message);
    return problem.message;
  }
  if (!read.ok) return read.message;
  const built = buildHistory(plan, read.reads, job.options.gaps);
  if (built.ok) return built.history;
  const where = `${describeSources(target)} in ${region} from ${utc(plan.asked.start)} to ${utc(plan.asked.end)}`;
  return built.reason === 'NoData'
    ? `no datapoint for ${where}: check the names in the policy, --region, and that the target served requests then`
    : `${where}: ${built.message}`;
}

export async function historyCommand(args: string[], io: CliIo): Promise<number> {
  const job = await prepare(args, io, Date.now());
  const h = await readHistory(job);
  if (typeof h === 'string') {
    io.stderr(`governor history: ${h}`);
    return EXIT.failure;
  }
  const { options, target, region, now, notePath } = job;
  for (const line of reportLines(h, target, region)) io.stderr(line);
  await writeOutput(options.out, renderCsv(h.filled.requests), io, { flag: 'out', quiet: true });
  const context = { csvName: basename(options.out), policyFile: options.policy, target, region, now };
  await writeOutput(notePath, renderNote(h, context), io, { flag: 'out', quiet: true });
  io.stdout(doneLine(h, options.out, notePath));
  return EXIT.ok;
}
