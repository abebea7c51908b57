/** The JSON Schema of the policy file, generated from the zod schema (what editors complete from). */
import * as z from 'zod';
import { PolicyFileSchema } from './schema.ts';

export function policyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PolicyFileSchema, { io: 'input', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    $id: 'https://governor.dev/schemas/policy.schema.json',
    title: 'Governor policy file',
    description: 'Targets Governor manages, the signals that drive each, and how decisions are damped.',
  };
}

export const policyJsonSchemaText = (): string => `${JSON.stringify(policyJsonSchema(), null, 2)}\n`;
