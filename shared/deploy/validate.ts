/**
 * The project's own checks of template.yaml and the state machines it deploys, beside cfn-lint
 * (`npm run validate` runs both): resource types and properties against the CloudFormation/SAM
 * specification; IAM actions real, named one by one, "*" only where nothing narrower exists,
 * every write scoped to named resources or by a condition;
 * every API call the code and the state machines make granted to the role that makes it, and
 * every grant used (or listed below with the reason it is needed); ASL rules and substitutions.
 *
 *   node shared/deploy/validate.ts [template.yaml]   prints one line per problem, exit 1 if any
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import { actionsNeeded, checkDefinition, placeholders } from './asl.ts';
import { isObject, type JsonObject, parseTemplate } from './cfn-yaml.ts';
import {
  allStatements,
  checkActions,
  checkOpaquePolicies,
  checkWildcardResources,
  grantsByPrincipal,
  identityStatements,
  principalOf,
} from './iam.ts';
import { checkWriteScopes } from './iam-scopes.ts';
import { commandsSentFrom } from './sdk-scan.ts';
import { checkTemplateAgainstSpec, specLookup } from './spec-check.ts';

/** Actions a role needs that no code or Task calls by name, and why. */
export const NEEDED_WITHOUT_A_CALL: Readonly<Record<string, string>> = {
  'logs:createlogstream': 'the Lambda runtime writes the function log',
  'logs:putlogevents': 'the Lambda runtime writes the function log',
  'sqs:sendmessage': 'Lambda sends failed asynchronous events to the dead-letter queue',
  'sagemaker:describeendpointconfig':
    'Application Auto Scaling checks it when RegisterScalableTarget suspends scaling on a variant',
  'sagemaker:updateendpointweightsandcapacities':
    'Application Auto Scaling checks it when RegisterScalableTarget suspends or resumes scaling on a variant',
  'sagemaker:updateinferencecomponentruntimeconfig':
    'Application Auto Scaling checks it when RegisterScalableTarget suspends or resumes scaling on an inference component',
  'logs:createlogdelivery': 'Step Functions delivers execution logs',
  'logs:getlogdelivery': 'Step Functions delivers execution logs',
  'logs:updatelogdelivery': 'Step Functions delivers execution logs',
  'logs:deletelogdelivery': 'Step Functions delivers execution logs',
  'logs:listlogdeliveries': 'Step Functions delivers execution logs',
  'logs:putresourcepolicy': 'Step Functions delivers execution logs',
  'logs:describeresourcepolicies': 'Step Functions delivers execution logs',
  'logs:describeloggroups': 'Step Functions delivers execution logs',
  'xray:puttracesegments':
    'with Tracing=Active, traces are uploaded by the X-Ray daemon (functions) and Step Functions',
  'xray:puttelemetryrecords': 'with Tracing=Active, the X-Ray daemon reports its telemetry',
  'xray:getsamplingrules': 'with Tracing=Active, the sampler reads the sampling rules',
  'xray:getsamplingtargets': 'with Tracing=Active, the sampler asks for its sampling quota',
  'ec2:runinstances':
    'Auto Scaling checks that the caller of UpdateAutoScalingGroup may launch from the launch template its MixedInstancesPolicy names',
  'ec2:createtags':
    "Auto Scaling checks it with RunInstances when the launch template's tag specifications tag what it launches",
  'iam:passrole':
    "Auto Scaling checks it with RunInstances when the launch template names an instance profile's role",
  'sqs:receivemessage': "Lambda's event source mapping polls the spot-events queue with the function's role",
  'sqs:deletemessage': "Lambda's event source mapping deletes the messages the function handled",
  'sqs:getqueueattributes': "Lambda's event source mapping reads the queue's attributes when it starts",
};

export interface CheckResult {
  check: string;
  problems: string[];
}

export interface Caller {
  /** The function or state machine's logical id. */
  id: string;
  principal: string;
  /** IAM action (lower case) to the places that call it. */
  calls: Map<string, string[]>;
}

const resourcesOf = (t: JsonObject): [string, JsonObject][] =>
  Object.entries(isObject(t.Resources) ? t.Resources : {}).flatMap(([id, r]) =>
    isObject(r) ? [[id, r]] : [],
  );

/** The functions (by esbuild entry point) and state machines (by DefinitionUri), with their calls. */
export function callers(template: JsonObject, root: string): Caller[] {
  return resourcesOf(template).flatMap(([id, r]): Caller[] => {
    const props = isObject(r.Properties) ? r.Properties : {};
    const calls = new Map<string, string[]>();
    const add = (action: string, where: string) =>
      calls.set(action.toLowerCase(), [...(calls.get(action.toLowerCase()) ?? []), where]);
    if (r.Type === 'AWS::Serverless::Function') {
      const build =
        isObject(r.Metadata) && isObject(r.Metadata.BuildProperties) ? r.Metadata.BuildProperties : {};
      const entries = Array.isArray(build.EntryPoints) ? build.EntryPoints.map(String) : [];
      const codeUri = typeof props.CodeUri === 'string' ? props.CodeUri : '.';
      for (const entry of entries) {
        for (const c of commandsSentFrom(join(root, codeUri, entry), root)) {
          add(c.action ?? `unmapped:${c.pkg}`, `${c.file} ${c.command}`);
        }
      }
      return [{ id, principal: principalOf(template, id), calls }];
    }
    if (r.Type === 'AWS::Serverless::StateMachine' && typeof props.DefinitionUri === 'string') {
      const definition = JSON.parse(readFileSync(join(root, props.DefinitionUri), 'utf8'));
      for (const [action, states] of actionsNeeded(definition)) for (const s of states) add(action, s);
      return [{ id, principal: principalOf(template, id), calls }];
    }
    return [];
  });
}

/** Every call granted to its caller's role, and every grant called or needed without a call. */
export function checkGrants(template: JsonObject, found: readonly Caller[]): string[] {
  const grants = grantsByPrincipal(identityStatements(template));
  return found.flatMap((c) => {
    const granted = grants.get(c.principal) ?? new Set<string>();
    const missing = [...c.calls].flatMap(([action, where]) =>
      action.startsWith('unmapped:')
        ? [`${c.id}: ${where.join(', ')} uses ${action.slice(9)}: add it to IAM_PREFIX_BY_PACKAGE`]
        : granted.has(action)
          ? []
          : [`${c.id}: ${action} is called (${where.join(', ')}) but not granted to ${c.principal}`],
    );
    const unused = [...granted]
      .filter((a) => !c.calls.has(a) && !(a in NEEDED_WITHOUT_A_CALL))
      .map((a) => `${c.id}: ${a} is granted to ${c.principal} but nothing calls it`);
    return [...missing, ...unused];
  });
}

/** DefinitionSubstitutions and placeholders match both ways; the ASL passes every rule. */
export function checkStateMachines(template: JsonObject, root: string): string[] {
  return resourcesOf(template).flatMap(([id, r]) => {
    const props = isObject(r.Properties) ? r.Properties : {};
    if (r.Type !== 'AWS::Serverless::StateMachine' || typeof props.DefinitionUri !== 'string') return [];
    const text = readFileSync(join(root, props.DefinitionUri), 'utf8');
    const used = placeholders(text);
    const given = new Set(
      Object.keys(isObject(props.DefinitionSubstitutions) ? props.DefinitionSubstitutions : {}),
    );
    return [
      ...[...used].filter((p) => !given.has(p)).map((p) => `${id}: \${${p}} has no DefinitionSubstitution`),
      ...[...given]
        .filter((p) => !used.has(p))
        .map((p) => `${id}: DefinitionSubstitution ${p} is never used`),
      ...checkDefinition(JSON.parse(text)).map((p) => `${props.DefinitionUri} ${p.where}: ${p.message}`),
    ];
  });
}

/** Runs every check on one template; the spec database takes about a second to load. */
export async function validateTemplate(templatePath: string): Promise<CheckResult[]> {
  const root = dirname(resolve(templatePath));
  const template = parseTemplate(readFileSync(templatePath, 'utf8'));
  const spec = specLookup(loadAwsServiceSpecSync());
  const statements = allStatements(template);
  const identity = identityStatements(template);
  const fmt = (p: { path: string; message: string }) => `${p.path}: ${p.message}`;
  return [
    { check: 'resource types and properties', problems: checkTemplateAgainstSpec(template, spec).map(fmt) },
    { check: 'IAM actions exist, none wildcard', problems: (await checkActions(statements)).map(fmt) },
    {
      check: 'IAM "*" resources only where required',
      problems: (await checkWildcardResources(identity)).map(fmt),
    },
    { check: 'IAM statements written out', problems: checkOpaquePolicies(template).map(fmt) },
    {
      check: 'IAM writes scoped by name or condition',
      problems: (await checkWriteScopes(identity)).map(fmt),
    },
    { check: 'calls granted, grants used', problems: checkGrants(template, callers(template, root)) },
    { check: 'state machines', problems: checkStateMachines(template, root) },
  ];
}

if (import.meta.main) {
  const results = await validateTemplate(process.argv[2] ?? 'template.yaml');
  for (const r of results) {
    console.log(`${r.problems.length === 0 ? 'ok  ' : 'FAIL'} ${r.check}`);
    for (const p of r.problems) console.log(`     ${p}`);
  }
  process.exitCode = results.some((r) => r.problems.length > 0) ? 1 : 0;
}
