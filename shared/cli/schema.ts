/** `governor schema [--write FILE]`: the policy file's JSON Schema, for editors. */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { policyJsonSchemaText } from '../policy/json-schema.ts';
import { type CliIo, EXIT } from './io.ts';
import { parseOptions } from './options.ts';

export async function schemaCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions(() => parseArgs({ args, options: { write: { type: 'string' } } }));
  const text = policyJsonSchemaText();
  if (values.write) {
    await writeFile(resolve(io.cwd, values.write), text);
    io.stdout(`wrote ${values.write}`);
  } else io.stdout(text.trimEnd());
  return EXIT.ok;
}
