/**
 * Reads a CloudFormation / SAM template written in YAML, turning the short-form intrinsic tags
 * (`!Ref X`, `!GetAtt A.B`, `!Sub ...`, `!If [...]`) into their long form (`{ Ref: X }`,
 * `{ 'Fn::GetAtt': ['A', 'B'] }`, ...), so the checks walk one plain JSON-like tree.
 */
import { parse, type ScalarTag, type YAMLMap, type YAMLSeq } from 'yaml';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Every short-form tag CloudFormation knows, by its long-form key. */
const FUNCTIONS = [
  'And',
  'Base64',
  'Cidr',
  'Equals',
  'FindInMap',
  'GetAZs',
  'If',
  'ImportValue',
  'Join',
  'Length',
  'Not',
  'Or',
  'Select',
  'Split',
  'Sub',
  'ToJsonString',
  'Transform',
] as const;

const longName = (name: string) => (name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`);

type CustomTag = ScalarTag | { tag: string; collection: 'seq' | 'map'; resolve: (value: unknown) => unknown };

/** One tag name gives three YAML tags: on a scalar, a sequence and a mapping. */
function tagsFor(name: string): CustomTag[] {
  const key = longName(name);
  const scalar = (value: string): unknown => {
    if (name === 'GetAtt') {
      const dot = value.indexOf('.');
      return { [key]: dot < 0 ? [value] : [value.slice(0, dot), value.slice(dot + 1)] };
    }
    return { [key]: value };
  };
  return [
    { tag: `!${name}`, resolve: scalar } as ScalarTag,
    { tag: `!${name}`, collection: 'seq', resolve: (seq) => ({ [key]: (seq as YAMLSeq).toJSON() }) },
    { tag: `!${name}`, collection: 'map', resolve: (map) => ({ [key]: (map as YAMLMap).toJSON() }) },
  ];
}

const CUSTOM_TAGS = ['Ref', 'Condition', 'GetAtt', ...FUNCTIONS].flatMap(tagsFor);

/** Template YAML to a plain object; throws a one-line error naming the line when it is not YAML. */
export function parseTemplate(text: string): JsonObject {
  const doc = parse(text, {
    customTags: CUSTOM_TAGS as never,
    // CloudFormation treats `on`/`off`/`yes` as strings; YAML 1.2 core does too.
    version: '1.2',
    schema: 'core',
  }) as unknown;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new Error('template: the document is not a YAML mapping (expected Resources, Parameters, ...)');
  }
  return doc as JsonObject;
}

/** `{ 'Fn::If': [cond, a, b] }` and friends: the intrinsic function name, or null for plain data. */
export function intrinsicName(value: Json): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1) return null;
  const key = keys[0]!;
  return key === 'Ref' || key === 'Condition' || key.startsWith('Fn::') ? key : null;
}

export const isObject = (value: Json | undefined): value is JsonObject =>
  value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);

/**
 * The values a property may take: `Fn::If` gives both branches (AWS::NoValue dropped), any other
 * value is itself. Used to walk statements and properties under every condition.
 */
export function branches(value: Json): Json[] {
  if (isObject(value) && intrinsicName(value) === 'Fn::If') {
    const args = value['Fn::If'];
    if (Array.isArray(args) && args.length === 3) {
      return [args[1]!, args[2]!].filter((v) => !(isObject(v) && v.Ref === 'AWS::NoValue')).flatMap(branches);
    }
  }
  return [value];
}
