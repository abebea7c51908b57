/**
 * The tune report in headless Chromium: the verdict first, the held-out table, the Pareto chart
 * with a dot per candidate, the front and the three marked policies, what changed; hostile text
 * stays text; nothing is fetched or logged as an error. Skips with a message without Chromium on
 * a developer machine; fails in CI (.ci/run installs it).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicySummary } from '#shared/backtest/types.ts';
import type { Figures } from '#shared/tune/evaluate.ts';
import { renderTuneHtml } from '#shared/tune/html.ts';
import { goalOf } from '#shared/tune/objective.ts';
import type { TuneReport } from '#shared/tune/report.ts';
import { judge } from '#shared/tune/verdict.ts';
import { chromiumGate, type HtmlPage, openHtml } from '../report/chromium.ts';

const gate = chromiumGate();
if (gate.message) console.log(gate.message);

const figures = (cost: number, viol: number): Figures => ({
  instanceMinutes: cost * 1000,
  costVsOracle: cost,
  violationMinutes: viol,
  violationRatio: viol / 10_000,
  requestsViolationRatio: viol / 8_000,
  scalingActions: 100,
  folds: [0.8, 1, 1.2].map((k) => ({
    costVsOracle: cost,
    violationRatio: (k * viol) / 10_000,
    requestsViolationRatio: (k * viol) / 8_000,
  })),
});
const summary = (name: string, cost: number, viol: number): PolicySummary => ({
  name,
  instanceMinutes: cost * 1000,
  costUsd: 0,
  costVsOracle: cost,
  violationMinutes: viol,
  violationRatio: viol / 5000,
  requestsInViolationRatio: 0,
  scalingActions: 50,
});
const candidates = Array.from({ length: 40 }, (_, i) => ({
  costVsOracle: 1.5 + (i % 10) / 10,
  violationRatio: (40 - i) / 1000,
}));
const report: TuneReport = {
  trace: 'history <b>x</b>.csv',
  targetId: 'chat-llm',
  minutes: 40_000,
  split: 26_800,
  objective: { minutes: 0.995, requests: null, text: '99.5 % of minutes within the SLO over 30 days' },
  goal: {
    maxViolationRatio: 0.0025,
    maxRequestsViolationRatio: null,
    margin: 0.5,
    source: 'at least 99.75 % of minutes within the SLO in each fold of the training part',
  },
  search: {
    candidates: 40,
    refused: 0,
    stoppedEarly: 12,
    stoppedBy: 'candidates',
    seed: 1,
    seconds: 12.3,
    workers: 2,
  },
  training: { baseline: figures(2.1, 300), start: figures(1.9, 80), tuned: figures(1.6, 180) },
  heldOut: {
    tuned: summary('governor', 1.6, 9),
    start: summary('governor', 1.95, 4),
    baseline: summary('aws-target-tracking', 2.2, 150),
  },
  verdict: judge(
    {
      tuned: summary('governor', 1.6, 9),
      start: summary('governor', 1.95, 4),
      baseline: summary('aws-target-tracking', 2.2, 150),
    },
    goalOf({ minutes: 0.995 }),
  ),
  changes: [
    ['target', 75, 102],
    ['floorSigmas', 2.6, 1.65],
  ],
  tuned: { target: 102 },
  front: candidates.slice(0, 8).map((c) => ({ ...c, violationMinutes: c.violationRatio * 10_000 })),
  candidates,
};

if (gate.mustFail) {
  it('finds Chromium at /usr/bin/chromium, which CI installs in .ci/run', () => {
    throw new Error(gate.message);
  });
}

describe.skipIf(!gate.available)('the tune HTML report in headless Chromium', () => {
  let opened: HtmlPage;
  let page: Page;

  beforeAll(async () => {
    opened = await openHtml(renderTuneHtml(report, 'policy.yaml'), 'governor-tune-report-');
    page = opened.page;
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('says the verdict first, in the objective\u2019s terms, and what was written', async () => {
    expect(await page.$eval('#verdict', (el) => el.textContent)).toBe(`${report.verdict.sentence}.`);
    expect(report.verdict.sentence).toMatch(/^the tuned policy meets the objective on the held-out part/);
    expect(await page.$eval('#written', (el) => el.textContent)).toBe('wrote the tuned policy.');
    expect(await page.$$eval('#pareto #objective', (els) => els.length)).toBe(1);
  });

  it('lists the three policies of the held-out part', async () => {
    const names = await page.$$eval('#heldOut tbody td:first-child', (els) => els.map((e) => e.textContent));
    expect(names).toEqual(['tuned', 'starting (policy.yaml)', 'aws-target-tracking']);
  });

  it('draws a dot per candidate, the front and the three marked policies on a chart of real size', async () => {
    expect(await page.$$eval('#pareto circle.candidate', (els) => els.length)).toBe(40);
    expect(
      await page.$$eval('#pareto circle.mark', (els) => els.map((e) => e.getAttribute('data-name'))),
    ).toEqual(['target tracking', 'starting policy', 'tuned']);
    const points = await page.$eval('#front', (el) => el.getAttribute('points') ?? '');
    expect(points.split(' ')).toHaveLength(8);
    expect(await page.$eval('#pareto', (el) => el.getBoundingClientRect().width)).toBeGreaterThan(700);
  });

  it('lists what changed, and keeps a hostile trace name as text', async () => {
    expect(await page.$$eval('#changes li', (els) => els.length)).toBe(2);
    expect(await page.$eval('h1', (el) => el.textContent)).toBe(
      'Governor tune: chat-llm on history <b>x</b>.csv',
    );
  });

  it('fetches nothing beyond the page and logs no error', () => {
    expect(opened.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(opened.errors).toEqual([]);
  });
});
