import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { policyJsonSchemaText } from '#shared/policy/json-schema.ts';
import { parsePolicyText } from '#shared/policy/load.ts';

describe('bundled policy files', () => {
  it('the example policy is valid', () => {
    const result = parsePolicyText(readFileSync('examples/policy.yaml', 'utf8'));
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it('the committed JSON Schema matches the zod schema (run `npm run schema` when this fails)', () => {
    expect(readFileSync('policy.schema.json', 'utf8')).toBe(policyJsonSchemaText());
  });
});
