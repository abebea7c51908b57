/** The deployed template, parsed once per test file, and copies with one change for rule tests. */
import { readFileSync } from 'node:fs';
import { isObject, type JsonObject, parseTemplate } from '#shared/deploy/cfn-yaml.ts';
import type { Loose } from '#shared/deploy/resolve.ts';

export const TEMPLATE_PATH = 'template.yaml';
export const templateText = readFileSync(TEMPLATE_PATH, 'utf8');
export const template: JsonObject = parseTemplate(templateText);

/** The template's resource by logical id (throws naming it when absent). */
export function resource(id: string): JsonObject {
  const r = (template.Resources as JsonObject)[id];
  if (!isObject(r)) throw new Error(`template.yaml has no resource ${id}`);
  return r;
}

export const props = (id: string): JsonObject => resource(id).Properties as JsonObject;

export { type Loose, resolved } from '#shared/deploy/resolve.ts';

/** A deep copy of the template with `change` applied to it. */
export function changed(change: (t: Loose) => void): JsonObject {
  const copy = structuredClone(template) as Loose;
  change(copy);
  return copy as JsonObject;
}
