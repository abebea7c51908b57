/**
 * The template as CloudFormation would deploy it with some parameters (defaults for the rest):
 * conditions evaluated, Fn::If chosen, Ref of a parameter and ${Param} in Fn::Sub filled in,
 * Fn::Join of strings joined, resources whose Condition is false left out. Other intrinsics
 * (GetAtt, ${AWS::...}, Ref of a resource) stay as they are. Enough for the template's own
 * conditions (the template tests, `governor validate --cost`), not a general engine.
 */
import { isObject, type JsonObject } from './cfn-yaml.ts';

/** A template tree read by path (t.Resources.X.Properties.Y). */
// biome-ignore lint/suspicious/noExplicitAny: templates are walked by path
export type Loose = Record<string, any>;

const NO_VALUE = Symbol('AWS::NoValue') as unknown as Loose;

export function resolved(t: JsonObject, parameters: Record<string, string>): Loose {
  const params = t.Parameters as Loose;
  const value = (name: string) =>
    parameters[name] ?? (params[name] ? String(params[name].Default) : undefined);
  const conditions = t.Conditions as Loose;
  const truth = (node: Loose): boolean => {
    if (typeof node === 'string') return truth(conditions[node]);
    if (node.Condition) return truth(conditions[node.Condition]);
    if (node['Fn::Equals']) {
      const [a, b] = node['Fn::Equals'].map((x: Loose) => String(walk(x)));
      return a === b;
    }
    if (node['Fn::Not']) return !truth(node['Fn::Not'][0]);
    if (node['Fn::Or']) return node['Fn::Or'].some(truth);
    if (node['Fn::And']) return node['Fn::And'].every(truth);
    throw new Error(`cannot evaluate condition ${JSON.stringify(node)}`);
  };
  const walk = (node: Loose): Loose => {
    if (Array.isArray(node)) return node.map(walk).filter((x) => x !== NO_VALUE);
    if (!isObject(node as JsonObject)) return node;
    if (node.Ref === 'AWS::NoValue') return NO_VALUE;
    if (typeof node.Ref === 'string' && params[node.Ref]) return value(node.Ref) as unknown as Loose;
    if (node['Fn::If']) {
      const [name, yes, no] = node['Fn::If'];
      return walk(truth(name) ? yes : no);
    }
    if (Array.isArray(node['Fn::Join'])) {
      // A CommaDelimitedList parameter's Ref resolves to its comma-separated text here.
      const [separator, list] = node['Fn::Join'];
      const items: unknown = walk(list);
      const parts = typeof items === 'string' ? items.split(',') : items;
      if (Array.isArray(parts) && parts.every((x) => typeof x === 'string'))
        return parts.join(separator) as unknown as Loose;
    }
    if (typeof node['Fn::Sub'] === 'string') {
      return {
        'Fn::Sub': node['Fn::Sub'].replace(/\$\{(\w+)\}/g, (whole: string, name: string) =>
          params[name] ? String(value(name)) : whole,
        ),
      };
    }
    const out: Loose = {};
    for (const [k, v] of Object.entries(node)) {
      const w = walk(v as Loose);
      if (w !== NO_VALUE) out[k] = w;
    }
    return out;
  };
  const resources = Object.fromEntries(
    Object.entries(t.Resources as Loose).filter(([, r]) => !r.Condition || truth(r.Condition)),
  );
  return { ...walk({ ...t, Resources: resources }), Conditions: conditions };
}
