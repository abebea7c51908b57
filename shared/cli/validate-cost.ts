/**
 * `governor validate FILE --cost`: what the control plane itself costs a month for the policy's
 * targets (shared/cost/), read from the policy and the deployed template (template.yaml beside
 * the CLI, or --template), with the template's defaults unless --tracing says otherwise.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSUMPTIONS, type Assumptions } from '../cost/assumptions.ts';
import { type CostInputs, monthlyCost } from '../cost/model.ts';
import { stackFacts } from '../cost/stack.ts';
import { costTable, linesTable, summary } from '../cost/table.ts';
import { executionPath } from '../cost/transitions.ts';
import { parseTemplate } from '../deploy/cfn-yaml.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { readInput } from './files.ts';
import { type CliIo, UsageError } from './io.ts';

/** The template the CLI ships with. */
export const DEFAULT_TEMPLATE = fileURLToPath(new URL('../../template.yaml', import.meta.url));

/** The aws-sdk action of the change each SageMaker kind's execution makes, and the happy path's facts. */
const CHANGES: Partial<Record<TargetPolicy['kind'], string>> = {
  'sagemaker-variant': 'updateEndpointWeightsAndCapacities',
  'sagemaker-inference-component': 'updateInferenceComponentRuntimeConfig',
};
const IN_SERVICE = { 'endpoint.status': 'InService', 'component.status': 'InService' };

export interface CostOptions {
  template: string | undefined;
  tracing: boolean;
  actionsPerDay: number | undefined;
}

/** Everything but the targets, read from the template and its state machine. */
export async function costSetting(options: CostOptions, io: CliIo): Promise<Omit<CostInputs, 'targets'>> {
  const file = options.template ?? DEFAULT_TEMPLATE;
  const text = await readInput(file, options.template ? 'template' : null, io.cwd);
  let stack: ReturnType<typeof stackFacts>;
  try {
    stack = stackFacts(parseTemplate(text), options.tracing ? { Tracing: 'Active' } : {});
  } catch (error) {
    throw new UsageError(`--template ${file}: ${(error as Error).message.replace(/^template: /, '')}`);
  }
  const scalePaths: CostInputs['scalePaths'] = {};
  if (stack.scaleStateMachine) {
    const asl = resolve(dirname(resolve(io.cwd, file)), stack.scaleStateMachine.definitionUri);
    const definition = JSON.parse(readFileSync(asl, 'utf8')) as unknown;
    for (const [kind, write] of Object.entries(CHANGES)) {
      const path = executionPath(definition, write, { kind, ...IN_SERVICE });
      if (path) scalePaths[kind as TargetPolicy['kind']] = path;
    }
  }
  const assumptions: Assumptions = {
    ...ASSUMPTIONS,
    ...(options.actionsPerDay !== undefined ? { actionsPerDay: options.actionsPerDay } : {}),
  };
  return { stack, scalePaths, assumptions };
}

/** Prints the cost of one valid policy file. */
export function printCost(
  file: string,
  targets: readonly TargetPolicy[],
  setting: Omit<CostInputs, 'targets'>,
  io: CliIo,
) {
  const report = monthlyCost({ ...setting, targets });
  io.stdout(summary(report, file));
  io.stdout('');
  for (const l of linesTable(report)) io.stdout(l);
  io.stdout('');
  io.stdout(
    `The same policy grown to 1, 50 and 500 targets (USD a month; docs/operations.md, "What Governor costs to run"):`,
  );
  for (const l of costTable({ ...setting, targets })) io.stdout(l);
  io.stdout('');
  io.stdout(
    `Assumed: ${setting.assumptions.actionsPerDay} scale actions per SageMaker target a day (--actions-per-day), each serving after ${setting.assumptions.changeSeconds / 60} minutes; prices and their pages in shared/cost/prices.ts.`,
  );
}
