/**
 * The Lambda bundles as `sam build` makes them (template.yaml's esbuild BuildProperties): size
 * against the 1 MB budget with the largest packages in each, and the cold import (the bundle
 * imported in a fresh Node with the network shut, median of 7 processes) against the 0.2 s
 * budget. Baseline, built and imported the same way in the same run: a bundle of one bare SDK
 * client (DynamoDB) and a handler that does nothing, the floor any Node Lambda with the SDK pays.
 * Lambda's arm64 CPUs are slower than most workstations: read the ratio, not the milliseconds.
 * Prints figures; never fails.
 */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import {
  BUNDLE_BUDGET_BYTES,
  type Bundle,
  bundle,
  COLD_IMPORT_BUDGET_MS,
  coldImport,
  functionBuilds,
  functionEnvironment,
} from '#shared/deploy/bundle.ts';
import { parseTemplate } from '#shared/deploy/cfn-yaml.ts';

const RUNS = 7;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const ms = (x: number) => `${x.toFixed(0)} ms`;

async function baseline(options: Parameters<typeof build>[0]): Promise<Bundle> {
  const { entryPoints: _, ...rest } = options;
  const result = await build({
    ...rest,
    stdin: {
      contents: `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
        export const client = new DynamoDBClient({});
        export const handler = async () => client.config.region();`,
      resolveDir: process.cwd(),
      loader: 'js',
    },
    write: false,
    outfile: 'handler.mjs',
  });
  const code = result.outputFiles?.[0]?.text ?? '';
  return { id: 'baseline', outFile: 'handler.mjs', code, bytes: Buffer.byteLength(code), largest: [] };
}

export async function run(): Promise<void> {
  const template = parseTemplate(readFileSync('template.yaml', 'utf8'));
  const builds = functionBuilds(template, process.cwd());
  const first = builds[0];
  if (!first) throw new Error('template.yaml has no esbuild function');
  const base = await baseline(first.options);
  const baseImport = await coldImport(
    base,
    { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' },
    RUNS,
  );
  console.log(
    `baseline (one bare DynamoDB client, empty handler): ${kb(base.bytes)}, cold import ${ms(baseImport.medianMs)} (median of ${RUNS})`,
  );
  for (const b of builds) {
    const out = await bundle(b);
    const imported = await coldImport(out, functionEnvironment(template, b.id), RUNS);
    const range = `${ms(Math.min(...imported.runs))}-${ms(Math.max(...imported.runs))}`;
    console.log(
      `${b.id}: ${kb(out.bytes)} (${((100 * out.bytes) / BUNDLE_BUDGET_BYTES).toFixed(0)} % of the 1 MB budget, ${(out.bytes / base.bytes).toFixed(1)}x the baseline); ` +
        `cold import ${ms(imported.medianMs)} (${range}; ${((100 * imported.medianMs) / COLD_IMPORT_BUDGET_MS).toFixed(0)} % of the 0.2 s budget, ${(imported.medianMs / baseImport.medianMs).toFixed(1)}x the baseline)`,
    );
    console.log(
      `  largest: ${out.largest
        .slice(0, 6)
        .map((x) => `${x.name} ${kb(x.bytes)}`)
        .join(', ')}`,
    );
  }
}
