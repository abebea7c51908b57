/**
 * `governor validate FILE...`: exit 0 with a summary per valid file, 2 with one line per problem.
 * It checks what the Lambda functions check when they load the policy: the schema, the
 * cross-field rules and the CloudWatch source rules (sourceProblems), so a file that passes here
 * is not refused after a deploy.
 *
 * `governor validate MAIN --part FILE ...` checks a policy in parts (shared/policy-store/parts.ts)
 * as the functions merge the policy parameter and the parameters under `<name>/parts/`: the
 * parts in file-name order after the main file's targets, every problem naming its file.
 */

import type { PolicyFile, TargetPolicy } from '../policy/schema.ts';
import { type MergedPolicy, mergePolicyParts, type PolicyText } from '../policy-store/parts.ts';
import { describeObjective, sloOf } from '../slo/objective.ts';
import { readInput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';
import type { CostOptions } from './validate-cost.ts';

const USAGE =
  'usage: governor validate FILE... [--cost] | governor validate MAIN --part FILE [--part FILE ...] [--cost]';

/** A target's capacity mix in a few words: the commitment, spot and the budget. */
function mixSummary(t: TargetPolicy): string {
  const mix = t.capacityMix;
  if (!mix) return '';
  const parts = [`${mix.pools.length} pool${mix.pools.length === 1 ? '' : 's'}`];
  if (mix.committed.instances > 0) parts.push(`${mix.committed.instances} committed`);
  parts.push(mix.spot ? `spot up to ${mix.spot.maxPercent} %` : 'on-demand only');
  if (mix.maxUsdPerHour !== undefined) parts.push(`budget ${mix.maxUsdPerHour} USD/h`);
  return `, capacity mix: ${parts.join(', ')}`;
}

/** A target's own SLO section in a few words (the default objective is not repeated on every line). */
const sloSummary = (t: TargetPolicy): string => (t.slo ? `, SLO ${describeObjective(sloOf(t))}` : '');

export function summarize(policy: PolicyFile): string {
  const targets = policy.targets.map(
    (t) =>
      `${t.id} (${t.kind}, ${t.region}, ${t.scaling.minCapacity}-${t.scaling.maxCapacity} instances, ${t.signals.map((s) => s.metric).join('+')}${mixSummary(t)}${sloSummary(t)})`,
  );
  const groups = (policy.failover?.groups ?? []).map(
    (g) => `${g.id} (${g.mode}, ${g.routing.kind}: ${g.members.map((m) => m.targetId).join(', ')})`,
  );
  const failover =
    groups.length > 0
      ? `; ${groups.length} failover group${groups.length === 1 ? '' : 's'}: ${groups.join('; ')}`
      : '';
  return `valid: ${policy.targets.length} target${policy.targets.length === 1 ? '' : 's'}: ${targets.join('; ')}${failover}`;
}

/** Names sorted as SSM sorts the parts the functions read: by code unit. */
const byName = (a: PolicyText, b: PolicyText) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Prints the result of one policy (one file, or a main file and its parts), and its cost with --cost; the exit code. */
async function report(
  name: string,
  result: MergedPolicy,
  io: CliIo,
  cost: CostOptions | null,
): Promise<number> {
  if (result.ok) {
    const parts = result.origins.length - 1;
    const label = parts === 0 ? name : `${name} + ${parts} part${parts === 1 ? '' : 's'}`;
    io.stdout(`${label}: ${summarize(result.policy)}`);
    if (cost) {
      const { costSetting, printCost } = await import('./validate-cost.ts');
      io.stdout('');
      printCost(label, result.policy.targets, await costSetting(cost, io), io);
    }
    return EXIT.ok;
  }
  for (const line of result.problems) io.stderr(line);
  return EXIT.usage;
}

async function read(file: string, flag: string | null, io: CliIo): Promise<PolicyText | string> {
  try {
    return { name: file, text: await readInput(file, flag, io.cwd) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return error.message;
  }
}

export async function validateCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      part: { type: 'string', multiple: true },
      cost: { type: 'boolean' },
      template: { type: 'string' },
      tracing: { type: 'boolean' },
      'actions-per-day': { type: 'string' },
    },
  });
  for (const flag of ['template', 'tracing', 'actions-per-day'] as const) {
    if (values[flag] !== undefined && !values.cost)
      throw new UsageError(`--${flag} goes with --cost: add --cost`);
  }
  const cost: CostOptions | null = values.cost
    ? {
        template: values.template,
        tracing: values.tracing ?? false,
        actionsPerDay:
          values['actions-per-day'] === undefined
            ? undefined
            : numberOption('actions-per-day', values['actions-per-day'], 0, 0, 1440),
      }
    : null;
  const partFiles = values.part ?? [];
  if (positionals.length === 0) throw new UsageError(`${USAGE} (YAML or JSON policy files)`);
  if (partFiles.length > 0 && positionals.length !== 1) {
    throw new UsageError(
      `--part needs exactly one main file, got ${positionals.length}: validate one policy in parts at a time`,
    );
  }
  if (partFiles.length > 0) {
    const docs = await Promise.all([
      read(positionals[0]!, null, io),
      ...partFiles.map((f) => read(f, 'part', io)),
    ]);
    const unread = docs.filter((d): d is string => typeof d === 'string');
    for (const line of unread) io.stderr(line);
    if (unread.length > 0) return EXIT.usage;
    const [main, ...parts] = docs as PolicyText[];
    return report(main!.name, mergePolicyParts(main!, parts.sort(byName)), io, cost);
  }
  let worst: number = EXIT.ok;
  for (const file of positionals) {
    const doc = await read(file, null, io);
    if (typeof doc === 'string') io.stderr(doc);
    const code =
      typeof doc === 'string' ? EXIT.usage : await report(file, mergePolicyParts(doc, []), io, cost);
    worst = Math.max(worst, code);
  }
  return worst;
}
