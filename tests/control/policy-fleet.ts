/** Large policies for the policy-in-parts tests: n targets written like examples/policy.yaml. */
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

const EXAMPLE = parse(readFileSync('examples/policy.yaml', 'utf8')) as {
  version: 1;
  targets: Record<string, unknown>[];
};

/** examples/policy.yaml's target n times, each with its own id and endpoint (as plain data). */
export function exampleFleet(n: number): { version: 1; targets: Record<string, unknown>[] } {
  const t0 = EXAMPLE.targets[0]!;
  return {
    version: 1,
    targets: Array.from({ length: n }, (_, i) => ({
      ...structuredClone(t0),
      id: `chat-llm-${String(i).padStart(4, '0')}`,
      endpointName: `chat-llm-${i}`,
    })),
  };
}

/** The same as YAML text, in block style as an operator writes it. */
export const fleetYaml = (n: number): string => stringify(exampleFleet(n));
