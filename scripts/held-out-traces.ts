/**
 * `node scripts/held-out-traces.ts [FOLDER]`: writes the four held-out traces docs/backtest.md
 * judges the example policy on ("Held-out traces"), made from the bundled ones so they need no
 * download, and never used to choose a setting:
 *   - nasa-growth-flash: NASA with 3 %/day growth and, on 4 days in 5, a flash crowd (x1.8 for
 *     30 to 120 minutes, reached within 3 minutes) at a random time;
 *   - twitter-levels: Twitter at x1.8 from day 10, and x0.5 from day 16 (a new level, a collapse);
 *   - nasa-collapse: NASA at 40 % from day 14 on;
 *   - llm-3h-ramp: the Azure conversation hour three times over, rising from 0.6x to 1.4x.
 * Seeded: the same files every time. Then: npx governor suite --trace FOLDER/nasa-growth-flash.csv ...
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../shared/backtest/noise.ts';
import { parseTrace } from '../shared/backtest/trace.ts';
import { type ScriptUsage, scriptArgs } from './args.ts';
import { writeTraces } from './year-trace.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const DAY = 1440;
const read = (file: string) => parseTrace(readFileSync(join(root, 'traces', file), 'utf8'), file).requests;

export function nasaGrowthFlash(nasa: readonly number[], seed = 42): number[] {
  const random = mulberry32(seed);
  const out = nasa.map((x, m) => x * 1.03 ** (m / DAY));
  for (let d = 0; d < Math.floor(out.length / DAY); d++) {
    if (random() >= 0.8) continue;
    const start = d * DAY + Math.floor(random() * DAY);
    const length = 30 + Math.floor(random() * 91);
    for (let m = start; m < Math.min(out.length, start + length); m++)
      out[m]! *= 1 + 0.8 * Math.min(1, (m - start) / 3);
  }
  return out;
}

export const twitterLevels = (tw: readonly number[]) =>
  tw.map((x, m) => x * (m >= 16 * DAY ? 0.5 : m >= 10 * DAY ? 1.8 : 1));

export const nasaCollapse = (nasa: readonly number[]) => nasa.map((x, m) => x * (m >= 14 * DAY ? 0.4 : 1));

export const llmRamp = (conv: readonly number[]) =>
  Array.from({ length: 180 }, (_, m) => conv[m % conv.length]! * (0.6 + (0.8 * m) / 180));

const USAGE: ScriptUsage = {
  script: 'held-out-traces',
  synopsis: 'node scripts/held-out-traces.ts [FOLDER]',
  maxPositionals: 1,
  details: `Writes the four held-out traces of docs/backtest.md ("Held-out traces") into FOLDER (default
reports/held-out), made from the bundled traces and seeded, so the same files every time:
nasa-growth-flash.csv, twitter-levels.csv, nasa-collapse.csv and llm-3h-ramp.csv. Then:
  npx governor suite --trace FOLDER/nasa-growth-flash.csv --trace FOLDER/twitter-levels.csv ...`,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { positionals } = scriptArgs(USAGE, { allowPositionals: true });
  const nasa = read('nasa_http_1995_jul_per_minute.csv');
  writeTraces(resolve(positionals[0] ?? join(root, 'reports', 'held-out')), [
    ['nasa-growth-flash', nasaGrowthFlash(nasa)],
    ['twitter-levels', twitterLevels(read('twitter_stream_2021_08_per_minute.csv'))],
    ['nasa-collapse', nasaCollapse(nasa)],
    ['llm-3h-ramp', llmRamp(read('azure_llm_2023_conv_per_minute.csv'))],
  ]);
}
