/** The help texts of `governor status` and `governor shadow-report` (./commands.ts registers them). */

const LIVE_FOOTER = `  --stack NAME    the Governor stack (default governor, sam deploy's stack_name)
  --region R      its region (default AWS_REGION)
  --help          this text

AWS_ENDPOINT_URL aims every call at an emulator (npm run local -- --keep).`;

export const STATUS_HELP = `usage: governor status [--target ID] [--json] [--stack NAME] [--region R]

Every target of the deployed policy (or one) as it is now: mode, kill switch, capacity from the
target's own API (SageMaker DescribeEndpoint / DescribeInferenceComponent, Auto Scaling
DescribeAutoScalingGroups), the last decision with its reasons and sentence, running scale-target
executions and the pending change, the forecast floor, the group's warm pool, the failover
group's phase and routing (the weights last applied, and what the routing service says), the
capacity mix plan and spot state, the error budget. A part that cannot be read says why on its
own line. Read-only: it writes nothing.

  --target ID     one target (default: every target of the deployed policy)
  --json          one JSON object per target instead of text
${LIVE_FOOTER} Needs
cloudformation:DescribeStacks, ssm:GetParameter and GetParametersByPath, dynamodb:GetItem and
Query on the table, states:ListExecutions and DescribeExecution, and the Describe calls of the
targets' kinds. Exit 2 when credentials, the stack, its outputs, the table or the policy are
missing, one line naming the fix.`;

export const SHADOW_REPORT_HELP = `usage: governor shadow-report --target ID --days N [--html F] [--json F] [--usd-per-hour P] [--stack NAME] [--region R]

Governor's shadow decisions (the decision records in the state table) against the capacity the
fleet really ran (CloudWatch: Auto Scaling GroupInServiceInstances for a group; Governor's own
CurrentCapacity, read from SageMaker every minute, for SageMaker targets) and its latency (the
target's latency signal), minute by minute: instance-hours and cost either way, the minutes
Governor would have run fewer instances (short) or more (long), and the verdict in one sentence
first. Read-only.

  --target ID        the target's id in the deployed policy (required)
  --days N           whole days back from now, 1 to 14 (CloudWatch keeps one-minute data 15 days)
  --html F           also write the report as one self-contained HTML page with its chart
  --json F           also write the figures and the minute-by-minute series as JSON
  --usd-per-hour P   price of an instance-hour (default: the target's capacityMix on-demand price;
                     without either, cost is left out)
${LIVE_FOOTER} Needs
cloudformation:DescribeStacks, ssm:GetParameter and GetParametersByPath, dynamodb:Query on the
table and cloudwatch:GetMetricData.`;
