/**
 * `governor validate FILE...`: exit 0 with a summary per valid file, 2 with one line per problem.
 * It checks what the Lambda functions check when they load the policy: the schema, the
 * cross-field rules and the CloudWatch source rules (sourceProblems), so a file that passes here
 * is not refused after a deploy.
 */
import { sourceProblems } from '../control/sources.ts';
import { formatProblem, parsePolicyText } from '../policy/load.ts';
import type { PolicyFile } from '../policy/schema.ts';
import { readInput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';

export function summarize(policy: PolicyFile): string {
  const targets = policy.targets.map(
    (t) =>
      `${t.id} (${t.kind}, ${t.region}, ${t.scaling.minCapacity}-${t.scaling.maxCapacity} instances, ${t.signals.map((s) => s.metric).join('+')})`,
  );
  return `valid: ${policy.targets.length} target${policy.targets.length === 1 ? '' : 's'}: ${targets.join('; ')}`;
}

export async function validateCommand(args: string[], io: CliIo): Promise<number> {
  if (args.length === 0 || args.some((a) => a.startsWith('-'))) {
    throw new UsageError('usage: governor validate FILE... (YAML or JSON policy files)');
  }
  let worst: number = EXIT.ok;
  for (const file of args) {
    let text: string;
    try {
      text = await readInput(file, null, io.cwd);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      io.stderr(error.message);
      worst = EXIT.usage;
      continue;
    }
    const result = parsePolicyText(text);
    const problems = result.ok ? sourceProblems(result.policy.targets) : result.problems;
    if (result.ok && problems.length === 0) {
      io.stdout(`${file}: ${summarize(result.policy)}`);
    } else {
      for (const problem of problems) io.stderr(`${file}: ${formatProblem(problem)}`);
      worst = EXIT.usage;
    }
  }
  return worst;
}
