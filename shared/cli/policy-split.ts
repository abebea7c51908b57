/**
 * `governor policy split --in policy.yaml --out-dir DIR`: a policy too large for one SSM
 * parameter, as a main document and parts that each fit one (shared/policy-store/split.ts),
 * checked to merge back into the same policy (shared/policy-store/parts.ts), and the aws ssm
 * commands that publish them, printed in the order that never leaves the functions a smaller
 * fleet: the parts, then the main parameter, then the deletion of parts no longer in the policy.
 * Between those writes a reader may see a target twice (the policy load fails and the last good
 * policy is kept), never one missing that the new policy has.
 */

import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import { maxOf } from '../arrays/extent.ts';
import { mergePolicyParts, partsPath } from '../policy-store/parts.ts';
import { bytes, PARAMETER_MAX_BYTES, partSuffix, splitPolicy } from '../policy-store/split.ts';
import { readInput, writeOutput } from './files.ts';
import { type CliIo, EXIT, RunError, UsageError } from './io.ts';
import { numberOption, parseOptions } from './options.ts';

const USAGE =
  'usage: governor policy split --in policy.yaml --out-dir DIR [--max-bytes N] [--parameter NAME]';
/** Part names are 001 to 999, so that they sort in merge order. */
const MAX_PARTS = 999;
const PARAMETER_NAME = /^\/[a-zA-Z0-9_.\-/]{1,1000}$/;

/** A word the shell passes as it is, quoted when it has to be. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

const put = (name: string, file: string) =>
  `aws ssm put-parameter --name ${shellWord(name)} --type String --tier Intelligent-Tiering --overwrite --value ${shellWord(`file://${file}`)}`;

/** The publishing commands, one a line: parts, main, then stale parts deleted (10 names a call). */
export function publishCommands(parameter: string, dir: string, parts: number): string[] {
  const path = partsPath(parameter);
  const join = (file: string) => `${dir.replace(/\/+$/, '')}/${file}`;
  return [
    ...Array.from({ length: parts }, (_, i) =>
      put(`${path}/${partSuffix(i)}`, join(`part-${partSuffix(i)}.json`)),
    ),
    put(parameter, join('main.json')),
    `aws ssm get-parameters-by-path --path ${shellWord(path)} --query 'Parameters[].Name' --output text | tr '\\t' '\\n' | grep -vxF -f ${shellWord(join('parts.txt'))} | xargs -r -n 10 aws ssm delete-parameters --names`,
  ];
}

function options(args: string[]) {
  const [verb, ...rest] = args;
  if (verb !== 'split') {
    throw new UsageError(
      `${verb === undefined ? 'a subcommand is needed' : `unknown subcommand "${verb}"`}: ${USAGE}`,
    );
  }
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      in: { type: 'string' },
      'out-dir': { type: 'string' },
      'max-bytes': { type: 'string' },
      parameter: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; ${USAGE}`);
  if (values.in === undefined || values['out-dir'] === undefined)
    throw new UsageError(`--in and --out-dir are required; ${USAGE}`);
  const maxBytes = numberOption(
    'max-bytes',
    values['max-bytes'],
    PARAMETER_MAX_BYTES,
    512,
    PARAMETER_MAX_BYTES,
  );
  if (!Number.isInteger(maxBytes))
    throw new UsageError(`--max-bytes must be a whole number, got "${values['max-bytes']}"`);
  const parameter = values.parameter ?? '/governor/policy';
  if (!PARAMETER_NAME.test(parameter))
    throw new UsageError(
      `--parameter "${parameter}" is not an SSM parameter name: start it with / (letters, digits, _ . - /)`,
    );
  return { file: values.in, dir: values['out-dir'], maxBytes, parameter: parameter.replace(/\/+$/, '') };
}

export async function policyCommand(args: string[], io: CliIo): Promise<number> {
  const { file, dir, maxBytes, parameter } = options(args);
  const text = await readInput(file, 'in', io.cwd);
  const original = mergePolicyParts({ name: file, text }, []);
  if (!original.ok) {
    for (const line of original.problems) io.stderr(line);
    return EXIT.usage;
  }
  const data = parseDocument(text).toJS() as Record<string, unknown>;
  const result = splitPolicy(data, maxBytes);
  if (!result.ok) throw new UsageError(`--in ${file}: ${result.problem}`);
  const { main, parts } = result.split;
  if (parts.length > MAX_PARTS)
    throw new UsageError(
      `--in ${file} needs ${parts.length} parts, more than ${MAX_PARTS}: raise --max-bytes`,
    );
  const names = parts.map((_, i) => `${partsPath(parameter)}/${partSuffix(i)}`);
  const back = mergePolicyParts(
    { name: parameter, text: main },
    parts.map((t, i) => ({ name: names[i]!, text: t })),
  );
  if (!back.ok || !isDeepStrictEqual(back.policy, original.policy))
    throw new RunError(`the parts do not merge back into ${file}'s policy: this is a bug, please report it`);
  const outputs: [string, string][] = [
    ['main.json', main],
    ...parts.map((t, i): [string, string] => [`part-${partSuffix(i)}.json`, t]),
    ['parts.txt', names.map((n) => `${n}\n`).join('')],
  ];
  for (const [name, body] of outputs) {
    await writeOutput(`${dir.replace(/\/+$/, '')}/${name}`, body, io, { flag: 'out-dir', quiet: true });
  }
  const largest = maxOf(parts.map(bytes), bytes(main));
  io.stderr(
    parts.length === 0
      ? `${file}: ${original.policy.targets.length} target${original.policy.targets.length === 1 ? '' : 's'}, all in main.json under ${dir} (${largest} bytes of ${maxBytes}): one parameter holds the policy; publish it with:`
      : `${file}: ${original.policy.targets.length} targets in ${parts.length} part${parts.length === 1 ? '' : 's'} under ${dir}, main.json holding the rest of the policy (largest ${largest} bytes of ${maxBytes}); publish them with:`,
  );
  for (const line of publishCommands(parameter, dir, parts.length)) io.stdout(line);
  return EXIT.ok;
}
