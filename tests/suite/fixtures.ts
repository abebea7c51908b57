/** Small traces for the suite's tests: two hours each, so a cell runs in milliseconds. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function suiteFixtures() {
  const dir = mkdtempSync(join(tmpdir(), 'governor-suite-'));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  // A ramp to a plateau and down again; and a flat hour with a surge.
  const ramp = Array.from({ length: 120 }, (_, m) => Math.round(200 + 300 * Math.sin((Math.PI * m) / 120)));
  const surge = Array.from({ length: 120 }, (_, m) => (m >= 50 && m < 80 ? 600 : 150) + (m % 5) * 4);
  const csv = (xs: number[]) => ['minute,requests', ...xs.map((r, m) => `${m},${r}`)].join('\n');
  return {
    dir,
    ramp: write('ramp.csv', csv(ramp)),
    surge: write('surge.csv', csv(surge)),
    badTrace: write('bad.csv', 'time,count\n0,1\n'),
    write,
  };
}
