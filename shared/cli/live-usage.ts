/** The help texts of `governor status` (./commands.ts registers it). */

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
