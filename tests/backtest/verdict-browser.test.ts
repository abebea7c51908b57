/**
 * `governor backtest` opens with its verdict (issue 20): the first line it prints is the verdict
 * sentence, and the --html page of the same run, opened in headless Chromium at 1,280 x 900,
 * shows that sentence first, under the title and above the summary table, inside the first view.
 * Skips with a message when Chromium is missing on a developer machine; fails in CI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';
import { chromiumGate, launchChromium, openFile } from '../report/chromium.ts';

const gate = chromiumGate();
if (gate.message) console.log(gate.message);

const dir = mkdtempSync(join(tmpdir(), 'governor-verdict-'));
// 90 minutes: a quiet hour, then a half-hour surge (peak 400), as tests/backtest/cli.test.ts.
const minutes = Array.from({ length: 90 }, (_, m) => (m < 60 ? 100 + (m % 7) * 5 : 400 - (m % 5) * 10));
writeFileSync(join(dir, 'ok.csv'), ['minute,requests', ...minutes.map((r, m) => `${m},${r}`)].join('\n'));

const out: string[] = [];
let code: number;

beforeAll(async () => {
  const io: CliIo = { stdout: (l) => out.push(l), stderr: () => {}, stderrIsTTY: false, cwd: dir };
  code = await main(['backtest', '--trace', 'ok.csv', '--html', 'report.html'], io);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VERDICT =
  /^Governor (meets|misses) 99\.5 % of minutes within the SLO \([\d.]+ %\) at [\d.]+x the oracle/;

describe('the backtest opens with its verdict sentence', () => {
  it('prints the verdict as its first line, before the trace, the scenario and the table', () => {
    expect(code).toBe(0);
    const lines = out.join('\n').split('\n');
    expect(lines[0]).toMatch(VERDICT);
    expect(lines[1]).toMatch(/^trace ok\.csv: 90 minutes/);
  });
});

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

describe.skipIf(!gate.available)(
  'the backtest HTML report opens with its verdict, in headless Chromium',
  () => {
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      browser = await launchChromium();
      ({ page } = await openFile(browser, pathToFileURL(join(dir, 'report.html')).href));
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('shows the same sentence the command printed first, right under the title', async () => {
      const first = out.join('\n').split('\n')[0];
      // The header's first paragraph follows the h1 at once; nothing else comes between.
      const header = await page.$eval('header', (el) =>
        [...el.children].map((c) => ({ tag: c.tagName, id: c.id, text: c.textContent ?? '' })),
      );
      expect(header[0]?.tag).toBe('H1');
      expect(header[1]).toEqual({ tag: 'P', id: 'verdict', text: first });
    });

    it('shows the verdict above the summary table, within the first 1,280 x 900 view', async () => {
      const verdict = await page.locator('#verdict').boundingBox();
      const summary = await page.locator('#summary-h').boundingBox();
      expect(verdict).not.toBeNull();
      expect(summary).not.toBeNull();
      expect(verdict!.y + verdict!.height).toBeLessThanOrEqual(summary!.y);
      expect(verdict!.y + verdict!.height).toBeLessThanOrEqual(900);
      expect(await page.locator('#verdict').isVisible()).toBe(true);
    });
  },
);
