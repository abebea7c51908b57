/**
 * Checks every resource of a template against the CloudFormation and SAM resource specification
 * (@aws-cdk/aws-service-spec): the resource type exists, and every property, at every depth,
 * is one the type defines. Values computed by intrinsic functions are trusted (cfn-lint checks
 * their types); `Fn::If` is walked on both branches.
 *
 * The SAM part of the specification lags SAM itself: a SAM resource property it lacks is
 * accepted when the CloudFormation type SAM passes it through to defines it (for example
 * LoggingConfig of AWS::Serverless::Function, passed to AWS::Lambda::Function).
 */
import type { SpecDatabase } from '@aws-cdk/service-spec-types';
import { branches, intrinsicName, isObject, type Json, type JsonObject } from './cfn-yaml.ts';

type PropertySpec = { type: SpecType; previousTypes?: SpecType[] };
type SpecType =
  | { type: 'ref'; reference: { $ref: string } }
  | { type: 'array' | 'map'; element: SpecType }
  | { type: 'union'; types: SpecType[] }
  | { type: string };

export interface SpecProblem {
  /** Where, as a template path: Resources.EvaluateFunction.Properties.LoggingConfig.Foo */
  path: string;
  message: string;
}

/** SAM resource types and the CloudFormation type each passes unknown properties through to. */
export const SAM_PASS_THROUGH: Readonly<Record<string, string>> = {
  'AWS::Serverless::Function': 'AWS::Lambda::Function',
  'AWS::Serverless::StateMachine': 'AWS::StepFunctions::StateMachine',
  'AWS::Serverless::SimpleTable': 'AWS::DynamoDB::Table',
  'AWS::Serverless::LayerVersion': 'AWS::Lambda::LayerVersion',
};

/** Keys a resource may carry beside Type and Properties. */
const RESOURCE_ATTRIBUTES = new Set([
  'Type',
  'Properties',
  'DependsOn',
  'Metadata',
  'Condition',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'UpdatePolicy',
  'CreationPolicy',
]);

export interface SpecLookup {
  properties(cfnType: string): Record<string, PropertySpec> | null;
  definition(id: string): { name: string; properties: Record<string, PropertySpec> };
}

/** Adapts the spec database to the two lookups the check needs. */
export function specLookup(db: SpecDatabase): SpecLookup {
  return {
    properties(cfnType) {
      const found = db.lookup('resource', 'cloudFormationType', 'equals', cfnType);
      return found.length > 0 ? (found[0]!.properties as unknown as Record<string, PropertySpec>) : null;
    },
    definition(id) {
      const def = db.get('typeDefinition', id);
      return { name: def.name, properties: def.properties as unknown as Record<string, PropertySpec> };
    },
  };
}

/** Problems of one value against one spec type (empty: it fits). */
function checkValue(spec: SpecLookup, type: SpecType, value: Json, path: string): SpecProblem[] {
  const fn = intrinsicName(value);
  if (fn === 'Fn::If') return branches(value).flatMap((v) => checkValue(spec, type, v, path));
  if (fn !== null) return [];
  if (type.type === 'ref' && 'reference' in type && isObject(value)) {
    const def = spec.definition(type.reference.$ref);
    return checkObject(spec, def.properties, null, value, path, def.name);
  }
  if (type.type === 'array' && 'element' in type && Array.isArray(value)) {
    return value.flatMap((v, i) => checkValue(spec, type.element, v, `${path}[${i}]`));
  }
  if (type.type === 'map' && 'element' in type && isObject(value)) {
    return Object.entries(value).flatMap(([k, v]) => checkValue(spec, type.element, v, `${path}.${k}`));
  }
  if (type.type === 'union' && 'types' in type) {
    const tries = type.types.map((t) => checkValue(spec, t, value, path));
    return tries.some((p) => p.length === 0) ? [] : tries.sort((a, b) => a.length - b.length)[0]!;
  }
  return [];
}

/** Problems of an object against a property table (and a fallback table for SAM pass-through). */
function checkObject(
  spec: SpecLookup,
  properties: Record<string, PropertySpec>,
  fallback: Record<string, PropertySpec> | null,
  value: JsonObject,
  path: string,
  typeName: string,
): SpecProblem[] {
  return Object.entries(value).flatMap(([key, v]) => {
    const prop = properties[key] ?? fallback?.[key];
    if (!prop) {
      return [{ path: `${path}.${key}`, message: `${typeName} has no property ${key}` }];
    }
    const types = [prop.type, ...(prop.previousTypes ?? [])];
    const tries = types.map((t) => checkValue(spec, t, v, `${path}.${key}`));
    return tries.some((p) => p.length === 0) ? [] : tries[0]!;
  });
}

/** Every unknown resource type, resource attribute and property of the template. */
export function checkTemplateAgainstSpec(template: JsonObject, spec: SpecLookup): SpecProblem[] {
  const resources = template.Resources;
  if (!isObject(resources)) return [{ path: 'Resources', message: 'the template has no Resources mapping' }];
  return Object.entries(resources).flatMap(([id, resource]) => {
    const path = `Resources.${id}`;
    if (!isObject(resource) || typeof resource.Type !== 'string') {
      return [{ path, message: 'a resource needs a Type string' }];
    }
    const problems: SpecProblem[] = Object.keys(resource)
      .filter((k) => !RESOURCE_ATTRIBUTES.has(k))
      .map((k) => ({ path: `${path}.${k}`, message: `${k} is not a resource attribute` }));
    const properties = spec.properties(resource.Type);
    if (properties === null) {
      return [...problems, { path: `${path}.Type`, message: `unknown resource type ${resource.Type}` }];
    }
    const passTo = SAM_PASS_THROUGH[resource.Type];
    const fallback = passTo ? spec.properties(passTo) : null;
    const props = resource.Properties;
    if (props === undefined) return problems;
    if (!isObject(props))
      return [...problems, { path: `${path}.Properties`, message: 'Properties must be a mapping' }];
    return [
      ...problems,
      ...checkObject(spec, properties, fallback, props, `${path}.Properties`, resource.Type),
    ];
  });
}
