import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  formatDuration,
  formatNumber,
  formatRatio,
  formatShare,
  formatUsd,
  jsonForScript,
} from '#shared/report/format.ts';
import { axisLabel, formatMinute, minuteRuns, scaledTicks } from '#shared/report/time.ts';

describe('escaping', () => {
  it.each([
    { case: 'a tag becomes text', raw: '<b>x</b>', html: '&lt;b&gt;x&lt;/b&gt;' },
    { case: 'quotes cannot end an attribute', raw: `a"b'c`, html: 'a&quot;b&#39;c' },
    { case: 'an ampersand is escaped once', raw: 'R&D &amp;', html: 'R&amp;D &amp;amp;' },
    { case: 'plain text is unchanged', raw: 'nasa_http 1995', html: 'nasa_http 1995' },
  ])('$case', ({ raw, html }) => {
    expect(escapeHtml(raw)).toBe(html);
  });

  it.each([
    { case: 'a closing script tag', value: { m: '</script><script>alert(1)</script>' } },
    { case: 'an HTML comment opener', value: { m: '<!-- x' } },
    { case: 'line and paragraph separators', value: { m: 'a\u2028b\u2029c' } },
  ])('JSON for a script element hides $case and parses back to the same value', ({ value }) => {
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('numbers', () => {
  it.each([
    { case: 'a count gets thousands separators', text: formatNumber(1234567.8), want: '1,234,568' },
    { case: 'one decimal when asked', text: formatNumber(6961.04, 1), want: '6,961.0' },
    { case: 'dollars keep cents', text: formatUsd(10580.637), want: '$10,580.64' },
    { case: 'a cost ratio reads as a multiple', text: formatRatio(2.0234), want: '2.02×' },
    { case: 'a share reads as a percentage', text: formatShare(0.0093), want: '0.93 %' },
    { case: 'a zero share reads 0.00 %', text: formatShare(0), want: '0.00 %' },
    { case: 'one minute in 40,000 is not printed as 0', text: formatShare(1 / 40_000), want: '< 0.01 %' },
    { case: '27 days and 13 h of minutes', text: formatDuration(39_693), want: '27 d 13 h 33 min' },
    { case: 'a few hours', text: formatDuration(200), want: '3 h 20 min' },
    { case: 'no time at all', text: formatDuration(0), want: '0 min' },
  ])('$case', ({ text, want }) => {
    expect(text).toBe(want);
  });
});

describe('the time axis', () => {
  it.each([
    { case: 'minute 0 is day 1 at midnight', text: formatMinute(0), want: 'day 1 00:00' },
    {
      case: 'minute 3740 is day 3 at 14:20',
      text: formatMinute(2 * 1440 + 14 * 60 + 20),
      want: 'day 3 14:20',
    },
    { case: 'a day step labels whole days', text: axisLabel(2880, 1440), want: 'day 3' },
    { case: 'an hour step labels the clock', text: axisLabel(2880 + 600, 60), want: '10:00' },
    { case: 'midnight carries its day', text: axisLabel(1440, 60), want: 'day 2\n00:00' },
    { case: 'the first label carries its day', text: axisLabel(1440 + 540, 30, true), want: 'day 2\n09:00' },
  ])('$case', ({ text, want }) => {
    expect(text).toBe(want);
  });

  it.each([
    {
      case: '0..40 instances at mu 12.5 ticks every 100 req/min',
      min: 0,
      max: 40,
      mu: 12.5,
      want: [0, 8, 16, 24, 32, 40],
    },
    {
      case: '0..10 instances at mu 10.13 ticks every 20 req/min',
      min: 0,
      max: 10,
      mu: 10,
      want: [0, 2, 4, 6, 8, 10],
    },
    { case: 'an empty range gives no ticks', min: 5, max: 5, mu: 10, want: [] },
  ])('$case', ({ min, max, mu, want }) => {
    expect(scaledTicks(min, max, mu, 5)).toEqual(want);
  });

  it.each([
    {
      case: 'consecutive minutes make one run',
      minutes: [3, 4, 5, 9],
      want: [
        [3, 5],
        [9, 9],
      ],
    },
    { case: 'no minutes make no runs', minutes: [], want: [] },
    {
      case: 'isolated minutes make a run each',
      minutes: [0, 2, 4],
      want: [
        [0, 0],
        [2, 2],
        [4, 4],
      ],
    },
  ])('$case', ({ minutes, want }) => {
    expect(minuteRuns(minutes)).toEqual(want);
  });
});
