import { describe, expect, it } from 'vitest';
import type { BacktestResult } from '#shared/backtest/types.ts';
import { decodeSeries } from '#shared/report/codec.ts';
import { costChartModel } from '#shared/report/cost-chart.ts';
import { escapeHtml } from '#shared/report/format.ts';
import { renderHtmlReport } from '#shared/report/html.ts';
import { unpackDecision } from '#shared/report/messages.ts';
import { buildPayload, type ReportPayload } from '#shared/report/payload.ts';
import { syntheticResult } from './fixture.ts';

const HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="alert(1)">';

/** The embedded data, read back the way the page reads it. */
function embedded(html: string): ReportPayload {
  const match = html.match(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/);
  if (!match) throw new Error('no report-data script in the page');
  return JSON.parse(match[1]!) as ReportPayload;
}

const withPolicy = (
  result: BacktestResult,
  i: number,
  change: (p: BacktestResult['policies'][number]) => void,
) => {
  const copy = structuredClone(result);
  change(copy.policies[i]!);
  return copy;
};

describe('renderHtmlReport', () => {
  const base = syntheticResult({ minutes: 600 });

  it('names the trace and the scenario in the title', () => {
    const html = renderHtmlReport(base);
    expect(html).toMatch(
      /<title>Governor backtest: synthetic daily wave \(40 instances at peak, SLO at 80 % utilization, 8 min cold start\)<\/title>/,
    );
  });

  const firstName = (p: ReportPayload) => [p.policies[0]!.name];
  const drawnPoints = (r: BacktestResult) =>
    costChartModel(r).lines[0]!.values.filter((v) => v !== null).length;
  const messages = (p: ReportPayload) =>
    p.policies.flatMap((x) => x.decisions.map((d) => unpackDecision(p.text, d)[5]));
  it.each([
    // Escaped copies: the trace name in the title, the heading and the scenario; a policy name
    // in the summary, the reason table and the line saying what the chart opens on; messages
    // only in the data.
    {
      case: 'a trace name',
      result: syntheticResult({ minutes: 300, traceName: HOSTILE }),
      kept: () => [],
      escaped: 3,
      atLeast: 0,
    },
    {
      case: 'a policy name',
      result: syntheticResult({ minutes: 300, policyNames: [HOSTILE, 'static peak'] }),
      kept: firstName,
      // And in the cost chart: its line's data-policy, its legend entry and each point's title.
      escaped: 3 + 2 + drawnPoints(syntheticResult({ minutes: 300, policyNames: [HOSTILE, 'static peak'] })),
      atLeast: 1,
    },
    {
      case: 'a decision message',
      result: syntheticResult({ minutes: 300, message: HOSTILE }),
      kept: messages,
      escaped: 0,
      atLeast: 1,
    },
  ])(
    'lets no markup through $case: three scripts only, the text kept as data',
    ({ result, kept, escaped, atLeast }) => {
      const html = renderHtmlReport(result);
      expect(html.match(/<script/g)).toHaveLength(3);
      expect(html.match(/<\/script>/g)).toHaveLength(3);
      expect(html).not.toContain('<img');
      const texts = kept(embedded(html));
      expect(texts.length).toBeGreaterThanOrEqual(atLeast);
      for (const text of texts) expect(text.startsWith(HOSTILE)).toBe(true);
      expect(html.split(escapeHtml(HOSTILE)).length - 1).toBe(escaped);
    },
  );

  it('keeps a hostile trace name as escaped text in the heading', () => {
    const html = renderHtmlReport(syntheticResult({ minutes: 300, traceName: HOSTILE }));
    expect(html).toContain(
      '<h1>Governor backtest: &lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;',
    );
  });

  it('carries every per-minute series so the page decodes them exactly', () => {
    const payload = embedded(renderHtmlReport(base));
    const series = (i: number) => Array.from(decodeSeries(payload.series[i]!));
    expect(series(payload.demand)).toEqual(base.demand);
    expect(series(payload.oracle)).toEqual(base.oracle);
    base.policies.forEach((run, i) => {
      expect(series(payload.policies[i]!.ready)).toEqual(run.series.ready);
      expect(series(payload.policies[i]!.violations)).toEqual(run.series.violationMinutes);
    });
  });

  it('inlines everything: no script, style or link fetched from anywhere', () => {
    const html = renderHtmlReport(base);
    expect(html).not.toMatch(/<(script|img|link|iframe)[^>]*\s(src|href)=["']?(https?:)?\/\//i);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    expect(html).toContain('<link rel="icon" href="data:,">');
  });

  it('keeps 40,000 minutes of six policies under 700 kB, nothing downsampled', () => {
    const big = syntheticResult({
      minutes: 40_000,
      policyNames: ['governor', 'tt default', 'tt at mu', 'hpa', 'governor (warm pool)', 'static peak'],
    });
    const html = renderHtmlReport(big);
    expect(html.length).toBeLessThan(700_000);
    expect(decodeSeries(embedded(html).series[0]!).length).toBe(40_000);
  });
});

describe('the line saying what the chart opens on', () => {
  it.each([
    {
      case: 'names governor and AWS target tracking of a full run and says the others are a tick away',
      names: ['governor', 'governor-reactive', 'aws-target-tracking', 'k8s-hpa', 'oracle', 'static-peak'],
      want: 'The chart opens on the busiest day (the most requests) with governor and aws-target-tracking; tick another policy to add it.',
    },
    {
      case: 'names the first two policies of a run without AWS target tracking',
      names: ['governor', 'k8s-hpa', 'static-peak'],
      want: 'The chart opens on the busiest day (the most requests) with governor and k8s-hpa; tick another policy to add it.',
    },
    {
      case: 'names a lone policy and offers nothing to tick',
      names: ['k8s-hpa'],
      want: 'The chart opens on the busiest day (the most requests) with k8s-hpa.',
    },
  ])('$case', ({ names, want }) => {
    const html = renderHtmlReport(syntheticResult({ minutes: 300, policyNames: names }));
    expect(html).toContain(want);
  });
});

describe('the summary table', () => {
  const rowsOf = (html: string) =>
    [...html.matchAll(/<tr><th scope="row">(?:<span[^>]*><\/span>)?([^<]*)<\/th>/g)].map((m) => m[1]);

  it('lists each policy, then the oracle as the floor when the backtest did not list it', () => {
    const result = syntheticResult({ minutes: 300 });
    const rows = rowsOf(renderHtmlReport(result).split('id="summary-table"')[1]!.split('</table>')[0]!);
    expect(rows).toEqual([...result.policies.map((p) => p.summary.name), 'oracle (floor)']);
  });

  it('does not add a second oracle row when the backtest lists the oracle, and draws it as the floor only', () => {
    const result = syntheticResult({ minutes: 300, policyNames: ['governor', 'oracle', 'static peak'] });
    const html = renderHtmlReport(result);
    const rows = rowsOf(html.split('id="summary-table"')[1]!.split('</table>')[0]!);
    expect(rows).toEqual(['governor', 'oracle', 'static peak']);
    expect(embedded(html).policies.map((p) => p.floor)).toEqual([false, true, false]);
  });

  it('formats the figures an operator compares', () => {
    const result = syntheticResult({ minutes: 300 });
    const s = result.policies[0]!.summary;
    Object.assign(s, {
      instanceMinutes: 417_660,
      costUsd: 10_580.637,
      costVsOracle: 2.0234,
      violationRatio: 0.0093,
    });
    const html = renderHtmlReport(result);
    for (const text of ['6,961.0', '$10,580.64', '2.02×', '0.93 %'])
      expect(html).toContain(`<td class="num">${text}</td>`);
  });
});

describe('buildPayload', () => {
  const base = syntheticResult({ minutes: 120, policyNames: ['governor', 'static peak'] });

  it('stores identical series once (a static policy is ready = billed)', () => {
    const payload = buildPayload(base);
    const still = payload.policies[1]!;
    const copy = withPolicy(base, 1, (p) => {
      p.series.provisioned = [...p.series.ready];
    });
    const shared = buildPayload(copy).policies[1]!;
    expect(still.ready).not.toBe(still.provisioned);
    expect(shared.ready).toBe(shared.provisioned);
  });

  it.each([
    {
      case: 'a ready series of the wrong length',
      result: withPolicy(base, 0, (p) => {
        p.series.ready = p.series.ready.slice(1);
      }),
      error: 'report: policies[0] (governor).series.ready has 119 values; expected 120, one per trace minute',
    },
    {
      case: 'a NaN in the provisioned series',
      result: withPolicy(base, 1, (p) => {
        p.series.provisioned[7] = Number.NaN;
      }),
      error:
        'report: policies[1] (static peak).series.provisioned: value at index 7 is NaN; expected a finite number',
    },
    {
      case: 'violation minutes out of order',
      result: withPolicy(base, 0, (p) => {
        p.series.violationMinutes = [5, 3];
      }),
      error:
        'report: policies[0] (governor).series.violationMinutes[1] is 3; expected ascending whole minutes in 0..119',
    },
    {
      case: 'a decision past the trace',
      result: withPolicy(base, 0, (p) => {
        p.decisions = [{ minute: 500, action: 'hold', from: 1, to: 1, reasons: ['PanicHold'], message: 'x' }];
      }),
      error: 'report: policies[0] (governor).decisions[0].minute is 500; expected a whole minute in 0..119',
    },
    {
      case: 'no demand at all',
      result: { ...base, demand: [] },
      error: 'report: demand is empty; a report needs at least one minute',
    },
    {
      case: 'a zero mu',
      result: { ...base, scenario: { ...base.scenario, mu: 0 } },
      error: 'report: scenario.mu is 0; expected requests per minute above 0',
    },
  ])('rejects $case with one line naming the field', ({ result, error }) => {
    expect(() => buildPayload(result)).toThrow(error);
  });
});
