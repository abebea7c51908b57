/**
 * The longer usage texts of the command table (./commands.ts): backtest, invoke and policy, and
 * the shared text of pause, resume and release (switchHelp).
 */

export const BACKTEST_HELP = `usage: governor backtest --trace FILE [options]

Replays a trace (CSV: minute|second,requests[,input_tokens,output_tokens]) through Governor's
policy and the baselines against a simulated GPU fleet, and prints one row per policy.
Every scenario option defaults to the reference scenario (docs/backtest.md).

  --trace FILE              the trace (required)
  --policy FILE             policy file (default: the bundled examples/policy.yaml)
  --target ID               which target of the policy file (default: the first)
  --peak-instances N        instances the busiest minute needs (default 40)
  --slo-utilization U       utilization at which p95 reaches the SLO, 0.01-0.99 (default 0.8)
  --slo-ms MS               p95 SLO of the latency curve (default: the policy's, else 2000)
  --cold-start MIN          minutes a new instance needs to serve (default 8)
  --warm-start MIN          minutes a warm-pool instance needs to serve (default 1)
  --metric-delay MIN        minutes CloudWatch takes to deliver a datapoint (default 1)
  --price USD               price per instance-hour (default 1.52)
  --token-work              work per request from tokens (needs token columns)
  --output-token-weight W   with --token-work: one output token = W input tokens (default 5)
  --noise-seed N            Poisson noise on the counts, reproducible by seed (default: none)
  --warm-pool N             a fixed warm pool of N stopped instances for governor (default 0)
  --score-from M|F          score only from minute M, or from fraction F of the trace (0.67: the
                            last third); every policy still runs the whole trace (default: 0)
  --fill-gaps               read minutes missing from the trace as 0 requests (default: a
                            missing minute is refused, naming it)
  --outage REGION:START:DURATION
                            region failover instead: the target's region loses its capacity for
                            DURATION minutes from START (a minute, peak or trough of the busiest
                            day); every failover strategy side by side (docs/failover.md)
  --warm-floor N            with --outage: the warm standby's floor (default: the policy's, >= 1)
  --spot                    capacity mix instead: spot and on-demand under reclaim events, Governor
                            with its mix planner against all on-demand, SpotHedge, target tracking
                            70/30 and the oracle's cheapest mix (docs/capacity-mix.md)
  --spot-price F            with --spot and no capacityMix: spot at F x on-demand (default 0.35)
  --interruption-band B     with --spot: every pool's Spot Instance Advisor band, <5% 5-10% 10-15%
                            15-20% >20% (default: the policy's, else >20%)
  --interruption-scale X    with --spot: X times the bands' interruption rate (default 1)
  --committed N|auto        with --spot: N committed instances (no capacityMix only; default 0), or
                            auto: what governor commit plans on this trace's all on-demand fleet
  --committed-price USD     with --spot and no capacityMix: one committed instance's rate per hour
                            (default: the on-demand price; auto needs it)
  --spot-seed N             with --spot: seed of the reclaim events (default 1)
  --zone-wide W             with --spot: share 0-1 of the hazard that comes as zone-wide reclaims,
                            every pool of a zone at once (default 0: pool by pool)
  --zones N                 with --spot: the group spans N Availability Zones, 1-6 (default: the
                            policy's capacityMix.zones, else 3); a pool is a type in one zone
  --max-pool-share P        with --spot: spot.maxPoolShare, the most one loss may take, percent
  --loss-domain pool|zone   with --spot: spot.lossDomain, what one loss takes (default pool)
  --over-provision N        with --spot: spot.overProvision, spot instances held beyond Governor's
                            capacity while the plan runs spot (default: the policy's, else 0)
  --workers N               0: everything in this thread; 1: the governor's forecasts on a worker
                            thread while the other policies run, the same output sooner (default:
                            1 on two cores or more, else 0; the default backtest only)
  --json FILE               write the machine-readable result (every mode)
  --html FILE               write the self-contained HTML report (the default backtest only: not
                            with --outage or --spot, which write --json)
  --help                    this text

Bad input is one line on stderr and exit 2.`;

export const INVOKE_HELP = `usage: governor invoke evaluate --event FILE [--policy FILE] [--metrics FILE] [--shadow] [--now ISO|event]

Runs the evaluate handler in-process on a recorded event (events/*.json) and prints one JSON
decision record per evaluated target, or one line saying why the event was ignored.

  --event FILE      the EventBridge event (required)
  --policy FILE     the policy (default with AWS_ENDPOINT_URL: the SSM parameter there)
  --metrics FILE    recorded readings and capacity (events/invoke/chat-llm.json): the handler runs
                    over in-memory fakes, with no emulator, no network and no credentials
  --shadow          shadow mode: decide and print, change and write nothing
  --now ISO|event   the time to run at; "event" replays the event at its own time (default: now,
                    which makes a recorded event stale)
  --help            this text

Without --metrics, AWS_ENDPOINT_URL (an emulator: npm run local -- --keep prints a working
command) is where the handler reads and, without --shadow, acts. Exit 1 when a decision failed,
2 on bad input.`;

export const POLICY_HELP = `usage: governor policy split --in policy.yaml --out-dir DIR [options]

Splits a policy into a main document and parts, each at most --max-bytes in UTF-8 (as SSM counts
a parameter's value), to publish a policy larger than one SSM parameter (docs/scale.md). Writes
DIR/main.json (every section but the targets, and the targets when the whole policy fits) and
DIR/part-001.json, ... (version and targets, compact JSON), checks that they merge back into the
same policy, and prints the aws ssm commands that publish them: the parts, then the main
parameter, then the deletion of parts the new policy no longer has.

  --in FILE          the policy (required; it must pass governor validate)
  --out-dir DIR      where to write the files (required; created inside the working folder)
  --max-bytes N      the largest document, 512 to 8192 (default 8192: an advanced parameter;
                     4096 keeps every parameter standard)
  --parameter NAME   the policy parameter (default /governor/policy); parts go under NAME/parts/
  --help             this text

Exit 0 when the files are written; 2 on bad input (an invalid policy, one line per problem; a
target larger than --max-bytes on its own).`;

/** The help of pause, resume and release: the same options, a different value. */
export function switchHelp(command: string, value: string, effect: string): string {
  return `usage: governor ${command} [--stack NAME] [--region R]

Sets the deployed stack's kill switch (the SSM parameter its KillSwitchParameterName output
names) to "${value}". ${effect}

  --stack NAME   the Governor stack (default governor, sam deploy's stack_name)
  --region R     its region (default AWS_REGION)
  --help         this text

AWS_ENDPOINT_URL aims every call at an emulator (npm run local -- --keep). Needs
cloudformation:DescribeStacks, ssm:GetParameter and ssm:PutParameter on the parameter. Exit 2 when
credentials, the stack or its outputs are missing, one line naming the fix.`;
}
