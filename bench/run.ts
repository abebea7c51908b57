/**
 * `npm run bench`: runs every bench/*.bench.ts in turn. Each prints its own figures; none
 * fails on a slow machine. Run one with `node bench/run.ts NAME` (for example `engine`).
 */
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv[2];
const files = (await readdir(here))
  .filter((f) => f.endsWith('.bench.ts') && (!only || f.startsWith(only)))
  .sort();
if (files.length === 0) {
  console.error(`bench: no benchmark matches "${only}"`);
  process.exitCode = 2;
}
for (const file of files) {
  console.log(`\n== ${file.replace('.bench.ts', '')} ==`);
  const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<void> | void };
  await mod.run();
}
