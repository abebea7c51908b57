/**
 * The governor CLI's subcommands, loaded lazily so `governor validate` does not pay for the
 * backtest's or the AWS SDK's modules. One line per command.
 */
import type { Command } from './io.ts';
import { SHADOW_REPORT_HELP, STATUS_HELP } from './live-usage.ts';
import { BACKTEST_HELP, INVOKE_HELP, POLICY_HELP, switchHelp } from './usage.ts';

export interface CommandEntry {
  summary: string;
  /** What `governor COMMAND --help` prints: usage, every option and its default. */
  help: string;
  load: () => Promise<Command>;
}

export const COMMANDS: Record<string, CommandEntry> = {
  validate: {
    summary: 'validate FILE... [--cost] check policy files (and what Governor costs to run)',
    help: `usage: governor validate FILE... [--cost] (YAML or JSON policy files)
       governor validate MAIN --part FILE [--part FILE ...] [--cost]

Exit 0 and one summary line per valid file; exit 2 and one line per problem (the file, the path,
what is wrong, the fix).

  --part FILE   a part of a policy too large for one SSM parameter (repeat for each part): checked
                as the functions check the policy parameter and the parameters under
                <name>/parts/, merged in file-name order after MAIN's targets, as one policy
                (ids unique across all of them); a part holds only version and targets
  --cost        also print what Governor's control plane costs a month for the policy's targets
                (Lambda, Step Functions, DynamoDB, CloudWatch, X-Ray at us-east-1 list prices),
                and for 1, 50 and 500 targets like them (docs/operations.md)
  --template F  with --cost: the SAM template to read schedules, alarms and functions from
                (default: the template.yaml beside the CLI)
  --tracing     with --cost: as deployed with Tracing=Active (X-Ray in the total)
  --actions-per-day N
                with --cost: scale actions per SageMaker target a day (default 24)
  --help        this text`,
    load: async () => (await import('./validate.ts')).validateCommand,
  },
  policy: {
    summary: 'policy split --in F ...   split a policy too large for one SSM parameter into parts',
    help: POLICY_HELP,
    load: async () => (await import('./policy-split.ts')).policyCommand,
  },
  schema: {
    summary: 'schema [--write FILE]     print (or write) the policy file JSON Schema',
    help: 'usage: governor schema [--write FILE]\n\nPrints the policy file JSON Schema (generated from the zod schema), or writes it to FILE.',
    load: async () => (await import('./schema.ts')).schemaCommand,
  },
  invoke: {
    summary:
      'invoke evaluate ...       run the evaluate handler on a recorded event (offline with --metrics)',
    help: INVOKE_HELP,
    load: async () => (await import('./invoke.ts')).invokeCommand,
  },
  backtest: {
    summary: 'backtest --trace FILE     replay a trace through every policy; table, --json, --html',
    help: BACKTEST_HELP,
    load: async () => (await import('./backtest.ts')).backtestCommand,
  },
  suite: {
    summary:
      'suite [--policy FILE]     every trace under every scenario variant: governor against target tracking',
    help: `usage: governor suite [options]

Runs every bundled trace (traces/*.csv) under the reference scenario and under variants that move
one knob each (cold start 4 and 15 min, 10 and 160 instances at peak, metric delay 2 min, Poisson
noise seeds 1-5), Governor against AWS target tracking in every cell, in worker threads. A cell is
a win when Governor meets the policy's SLO objective (default 99.5 % of minutes) and costs no more
than target tracking at its best target (the cheapest of 0.1-1.0 x saturation that meets it), or
meets it where no target can (docs/backtest.md, "The policy suite").

  --policy FILE     policy file (default: the bundled examples/policy.yaml)
  --target ID       which target of the policy file (default: the first)
  --trace FILE      a trace to run instead of the bundled ones (repeat for several)
  --variants LIST   comma-separated variant ids (default: all): ${'reference'}, cold-4, cold-15,
                    peak-10, peak-160, delay-2, noise-1 .. noise-5
  --fill-gaps       read minutes missing from a trace as 0 requests (default: refused, naming it)
  --workers N       worker threads (default: one per core; 0 runs in this thread)
  --json FILE       write every cell's figures and verdict
  --html FILE       write the self-contained HTML report
  --help            this text

Exit 0 when no cell is a loss, 1 when one is, 2 on bad input.`,
    load: async () => (await import('./suite.ts')).suiteCommand,
  },
  tune: {
    summary:
      'tune --trace F --out F    fit the policy to a history; judge it on the part the search never saw',
    help: `usage: governor tune --trace HISTORY.csv --out policy.yaml [options]

Searches the policy's knobs (target and band, breach counts, scale-in window and cooldowns,
panic, forecast quantile and margin, noise sigmas, standby) on the first part of a history and
reports on the rest, which the search never sees: the tuned policy, the starting one and AWS
target tracking side by side, and the Pareto front of the training part (docs/tune.md). Writes
the tuned policy file (it passes governor validate, and says in its header what it was tuned on).

  --trace FILE              the history (required; governor history writes one)
  --out FILE                where to write the tuned policy (required)
  --policy FILE             the starting policy file (default: the bundled examples/policy.yaml)
  --target ID               which target of the policy file (default: the first)
  --train-fraction F        share of the history to train on, from its start (default 0.67)
  --candidates N            candidates to try (default 300): the search stops there, never at a
                            clock, so the same seed writes the same file on any machine
  --margin M                share of the error budget each training fold may spend (default 0.5:
                            at 99.5 % of minutes every fold must reach 99.75 %)
  --workers N               worker threads (default: one per core; 0 runs in this thread)
  --seed N                  the search's random seed (default 1; the same seed and history give
                            the same policy)
  --full-front              run every candidate over the whole training part; by default one that
                            can no longer qualify (dearer than the starting policy in a fold, or
                            over a fold's budget) or beat the best so far (saving less than it in
                            a fold) is stopped there: the same file in about a third of the time,
                            without it in the Pareto chart
  --json FILE               write the report as JSON
  --html FILE               write the report as a self-contained HTML page (Pareto chart)
  --peak-instances N, --slo-utilization U, --cold-start MIN, --metric-delay MIN, --price USD
                            the scenario, as for governor backtest (default: the reference)
  --help                    this text

The goal is the policy's SLO objective (slo.objective, 99.5 % of minutes by default) at the
lowest cost. When the starting policy met the objective on the held-out part and the tuned one
does not, or costs more, the starting policy is written and the report says why.

Exit 0 when the written policy meets the objective on the held-out part, 1 when it does not
(the file is written all the same), 2 on bad input.`,
    load: async () => (await import('./tune.ts')).tuneCommand,
  },
  commit: {
    summary: 'commit --trace F          instances to commit (Savings Plans, reservations) for each term',
    help: `usage: governor commit --trace HISTORY.csv --one-year USD --three-year USD [options]

How many instances to commit for each term offered, from the fleet Governor runs on the history
(the backtest's governor policy): the commitment that minimizes cost when it is billed hour by
hour as AWS bills it, with its break-even utilization, how much of it the history uses and the
saving against all on demand; beside it, what a Cost Explorer-style lookback of the last 7, 30 and
60 days would have recommended, judged over the whole history (docs/capacity-mix.md).

  --trace FILE        the history (required; governor history writes one)
  --one-year USD      the 1-year rate: USD per hour of one committed instance
  --three-year USD    the 3-year rate (at least one rate, or capacityMix.committed.usdPerHour)
  --on-demand USD     the on-demand price per instance-hour (default: the policy's capacityMix
                      committed or cheapest pool, else --price)
  --policy FILE       policy file (default: the bundled examples/policy.yaml)
  --target ID         which target of the policy file (default: the first)
  --fill-gaps         read minutes missing from the trace as 0 requests
  --json FILE         write the recommendation as JSON
  --peak-instances N, --slo-utilization U, --cold-start MIN, --metric-delay MIN, --price USD
                      the scenario, as for governor backtest (default: the reference)
  --help              this text

Assumes the history's shape holds for the term: no growth is projected. Bad input is one line and
exit 2.`,
    load: async () => (await import('./commit.ts')).commitCommand,
  },
  forecast: {
    summary: 'forecast --trace FILE     score the forecaster against naive and EC2-style baselines',
    help: 'usage: governor forecast --trace FILE [--history-days N] [--horizon-hours N] [--fill-gaps] [--json FILE]\n\nA rolling-origin evaluation: pinball loss (p50, p90), MAPE and p90 coverage of the forecaster against seasonal-naive and an EC2-style hourly forecast (docs/forecast.md).\n\n  --fill-gaps   read minutes missing from the trace as 0 requests (default: refused, naming it)',
    load: async () => (await import('./forecast.ts')).forecastCommand,
  },
  history: {
    summary: "history --target ID ...   a deployed target's demand from CloudWatch, as a trace",
    help: `usage: governor history --target ID --policy FILE --days N --out FILE.csv [options]

Reads a deployed target's demand (the requests the forecast function counts: docs/forecast-aws.md)
from CloudWatch with GetMetricData and writes it as a trace the backtest reads (minute,requests,
input_tokens,output_tokens), with a note beside it (FILE.md): what was read, each span's period,
how coarse spans were spread over minutes, every gap and how it was filled (docs/history.md).
Each span is read at the finest period CloudWatch still keeps for its age: 1 minute under 15 days,
5 minutes under 63, 1 hour under 455; a coarse sum is spread over its minutes, keeping its total.

  --target ID       the target in the policy file (required)
  --policy FILE     the policy file that names it (required)
  --days N          whole days of history to read, 1 to 455 (required)
  --out FILE.csv    where to write the trace; the note goes to FILE.md (required)
  --end ISO         when the window ends, such as 2025-06-09T12:00Z (default: now, to the minute)
  --region R        the region to read (default: the target's)
  --gaps MODE       interpolate: a line across each period without a datapoint (default);
                    zero: read such periods as idle (services that publish nothing when idle)
  --request-timeout S
                    seconds to wait for each GetMetricData answer before retrying it (default
                    60, at most 600); raise it when an endpoint answers too slowly
  --help            this text

Needs cloudwatch:GetMetricData (read-only). Bad input is one line and exit 2, before any AWS call.`,
    load: async () => (await import('./history.ts')).historyCommand,
  },
  pause: {
    summary: 'pause [--stack NAME]      kill switch on: Governor stops acting (what it suspended stays so)',
    help: switchHelp(
      'pause',
      'on',
      'Governor stops acting from its next evaluation (within a minute). What it suspended stays suspended.',
    ),
    load: async () => (await import('./switch.ts')).pauseCommand,
  },
  resume: {
    summary: 'resume [--stack NAME]     kill switch off: Governor acts again',
    help: switchHelp('resume', 'off', 'Governor acts again from its next evaluation (within a minute).'),
    load: async () => (await import('./switch.ts')).resumeCommand,
  },
  release: {
    summary:
      'release [--stack NAME]    kill switch release: Governor stops and resumes every scaler it suspended',
    help: switchHelp(
      'release',
      'release',
      "Governor stops acting from its next evaluation (within a minute), and that evaluation resumes\nevery scaler it suspended on targets with onConflictingScaler: suspend: the Application Auto\nScaling policies of SageMaker targets (dynamic scaling no longer suspended) and the\nAlarmNotification process of Auto Scaling groups. Each resume is in the target's decision\nrecord (governor decisions). governor resume hands control back to Governor.",
    ),
    load: async () => (await import('./switch.ts')).releaseCommand,
  },
  decisions: {
    summary: "decisions --target ID     a deployed target's decision timeline (--since 6h, --follow)",
    help: `usage: governor decisions --target ID [--since 6h] [--follow [--interval S]] [--json] [options]

A deployed target's decisions from the decision records in the state table (the stack's
StateTableName output), oldest first: time, capacity from -> to, outcome, reason codes, then the
sentence and what was done. Read-only.

  --target ID     the target's id in the deployed policy (required)
  --since D|ISO   how far back: 30m, 6h, 2d, or an ISO time (default 6h; records expire after 30 days)
  --follow        keep polling for new decisions until Ctrl-C
  --interval S    with --follow: seconds between polls, 5 to 3600 (default 30)
  --json          one JSON object per decision instead of text
  --stack NAME    the Governor stack (default governor)
  --region R      its region (default AWS_REGION)
  --help          this text

AWS_ENDPOINT_URL aims every call at an emulator (npm run local -- --keep). Needs
cloudformation:DescribeStacks and dynamodb:Query on the table. Exit 2 on bad input and when
credentials, the stack or its outputs are missing, one line naming the fix.`,
    load: async () => (await import('./decisions.ts')).decisionsCommand,
  },
  status: {
    summary:
      'status [--target ID]      each deployed target now: mode, switch, capacity, last decision, failover, mix, SLO',
    help: STATUS_HELP,
    load: async () => (await import('./status.ts')).statusCommand,
  },
  'shadow-report': {
    summary:
      'shadow-report --target ID shadow decisions against what the fleet ran: cost, short and long minutes',
    help: SHADOW_REPORT_HELP,
    load: async () => (await import('./shadow-report.ts')).shadowReportCommand,
  },
};
