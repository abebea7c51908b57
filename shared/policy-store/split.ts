/**
 * A policy as a main document and parts that each fit one SSM parameter (at most `maxBytes` of
 * UTF-8, as SSM counts a value), for `governor policy split`. Pure: the caller reads and writes.
 *
 * The whole policy in one document when it fits. Otherwise the main document keeps every
 * section but the targets (`targets: []`), and the targets fill parts in order, each part as
 * full as it can be: `{"version":1,"targets":[...]}`, compact JSON (YAML reads it). Targets are
 * written as the file has them (defaults not filled in), so a part holds as many as it can.
 *
 * Worked example (tests/control/policy-split.test.ts): 1,000 targets written like
 * examples/policy.yaml (about 850 bytes each as compact JSON) in 8,192-byte parts: 9 targets a
 * part, 112 parts, each under 8,192 bytes.
 */

export interface PolicySplit {
  /** The main document's text. */
  main: string;
  /** The parts' texts, in the order they must be merged (their names sort the same way). */
  parts: string[];
}

export type SplitResult = { ok: true; split: PolicySplit } | { ok: false; problem: string };

export const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** SSM's limit on a parameter's value: 4,096 bytes standard, 8,192 advanced. */
export const PARAMETER_MAX_BYTES = 8192;

/** `data` is the policy file as parsed (a mapping with a list of targets), already validated. */
export function splitPolicy(data: Record<string, unknown>, maxBytes: number): SplitResult {
  const whole = JSON.stringify(data);
  if (bytes(whole) <= maxBytes) return { ok: true, split: { main: whole, parts: [] } };
  const main = JSON.stringify({ ...data, targets: [] });
  if (bytes(main) > maxBytes) {
    return {
      ok: false,
      problem: `the sections other than targets take ${bytes(main)} bytes, more than the ${maxBytes} of one parameter: shorten them (a failover block of this size is unusual)`,
    };
  }
  const head = `{"version":${JSON.stringify(data.version)},"targets":[`;
  const tail = ']}';
  const parts: string[] = [];
  let open: string[] = [];
  let size = bytes(head) + bytes(tail);
  const close = () => {
    if (open.length > 0) parts.push(`${head}${open.join(',')}${tail}`);
    open = [];
    size = bytes(head) + bytes(tail);
  };
  const targets = data.targets as unknown[];
  for (const [i, target] of targets.entries()) {
    const text = JSON.stringify(target);
    const alone = bytes(head) + bytes(text) + bytes(tail);
    if (alone > maxBytes) {
      const id = (target as { id?: unknown }).id;
      return {
        ok: false,
        problem: `targets[${i}] (${JSON.stringify(id)}) takes ${alone} bytes in a part on its own, more than ${maxBytes}: raise --max-bytes (at most ${PARAMETER_MAX_BYTES}) or write the target with fewer fields (defaults can be left out)`,
      };
    }
    const added = bytes(text) + (open.length > 0 ? 1 : 0);
    if (size + added > maxBytes) close();
    size += bytes(text) + (open.length > 0 ? 1 : 0);
    open.push(text);
  }
  close();
  // The main document names how many parts there are, so a missing part fails the load.
  const counted = JSON.stringify({ ...data, targets: [], parts: { count: parts.length } });
  if (bytes(counted) > maxBytes) {
    return {
      ok: false,
      problem: `the sections other than targets take ${bytes(counted)} bytes, more than the ${maxBytes} of one parameter: shorten them (a failover block of this size is unusual)`,
    };
  }
  return { ok: true, split: { main: counted, parts } };
}

/** The name of part `i` (0-based) under `parts/`: 001, 002, ... (names sort in merge order). */
export const partSuffix = (i: number): string => String(i + 1).padStart(3, '0');
