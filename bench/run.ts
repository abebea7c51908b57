/**
 * `npm run bench`: runs every bench/*.bench.ts in turn. Each prints its own figures; none
 * fails on a slow machine. Run one with `node bench/run.ts NAME` (for example `engine`).
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type ScriptUsage, scriptArgs, usageExit } from '../scripts/args.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const all = (await readdir(here))
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace('.bench.ts', ''))
  .sort();
const USAGE: ScriptUsage = {
  script: 'bench',
  synopsis: 'npm run bench -- [NAME]',
  maxPositionals: 1,
  details: `Runs every benchmark in bench/, or those whose name starts with NAME, each printing its own
figures (none fails on a slow machine). The benchmarks:
  ${all.join(', ')}`,
};
const only = scriptArgs(USAGE, { allowPositionals: true }).positionals[0];
const files = all.filter((name) => !only || name.startsWith(only)).map((name) => `${name}.bench.ts`);
if (files.length === 0)
  usageExit(USAGE, `no benchmark matches "${only}" (the benchmarks: ${all.join(', ')})`);
for (const file of files) {
  console.log(`\n== ${file.replace('.bench.ts', '')} ==`);
  const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<void> | void };
  await mod.run();
}
