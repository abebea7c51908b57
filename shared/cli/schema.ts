/** `governor schema [--write FILE]`: the policy file's JSON Schema, for editors. */
import { policyJsonSchemaText } from '../policy/json-schema.ts';
import { writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { parseOptions } from './options.ts';

export async function schemaCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { write: { type: 'string' } },
  });
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument "${positionals[0]}"; usage: governor schema [--write FILE]`);
  }
  const text = policyJsonSchemaText();
  if (values.write !== undefined) {
    await writeOutput(values.write, text, io, { flag: 'write', what: 'a file such as policy.schema.json' });
  } else io.stdout(text.trimEnd());
  return EXIT.ok;
}
