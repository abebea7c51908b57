/**
 * What `governor tune` prints and writes as JSON: what it trained and judged on, the goal, the
 * search, the three policies on the training part and on the held-out part side by side, the
 * verdict against target tracking on the held-out part, and what changed.
 */
import type { PolicySummary } from '../backtest/types.ts';
import type { Figures } from './evaluate.ts';
import type { KnobValue } from './knobs.ts';
import type { TuneResult } from './tune.ts';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const days = (minutes: number) => `${(minutes / 1440).toFixed(1)} days`;

export interface TuneReport {
  trace: string;
  targetId: string;
  minutes: number;
  split: number;
  goal: { violationRatio: number; perFold: number[] | null; source: string };
  search: { candidates: number; refused: number; stoppedBy: string; seconds: number; workers: number };
  training: { baseline: Figures; start: Figures; tuned: Figures };
  heldOut: { tuned: PolicySummary; start: PolicySummary; baseline: PolicySummary };
  verdict: { dominates: boolean; cheaperBy: number; violationsSaved: number; sentence: string };
  changes: [string, KnobValue | undefined, KnobValue][];
  tuned: Record<string, KnobValue>;
  front: { costVsOracle: number; violationRatio: number; violationMinutes: number }[];
  candidates: { costVsOracle: number; violationRatio: number }[];
}

function verdict(h: TuneResult['heldOut']): TuneReport['verdict'] {
  const t = h.tuned;
  const b = h.baseline;
  const cheaperBy = 1 - t.instanceMinutes / b.instanceMinutes;
  const violationsSaved = b.violationMinutes - t.violationMinutes;
  const noDearer = t.instanceMinutes <= b.instanceMinutes;
  const noWorse = t.violationMinutes <= b.violationMinutes;
  const dominates = noDearer && noWorse && (cheaperBy > 0 || violationsSaved > 0);
  const cost = `${(100 * Math.abs(cheaperBy)).toFixed(1)} % ${cheaperBy >= 0 ? 'cheaper' : 'dearer'}`;
  const viol =
    violationsSaved >= 0
      ? `${whole.format(violationsSaved)} fewer violation minutes`
      : `${whole.format(-violationsSaved)} more violation minutes`;
  const sentence = dominates
    ? `the tuned policy dominates target tracking on the held-out part: ${cost}, ${viol}`
    : `the tuned policy does not dominate target tracking on the held-out part: ${cost}, ${viol}; keep the starting policy, or tune on a longer history`;
  return { dominates, cheaperBy, violationsSaved, sentence };
}

export function toTuneReport(
  r: TuneResult,
  info: { trace: string; targetId: string; seconds: number; workers: number; changes: TuneReport['changes'] },
): TuneReport {
  return {
    trace: info.trace,
    targetId: info.targetId,
    minutes: r.heldOut.minutes,
    split: r.split,
    goal: { violationRatio: r.goal.violationRatio, perFold: r.goal.perFold ?? null, source: r.goal.source },
    search: {
      candidates: r.tried.length + r.refused,
      refused: r.refused,
      stoppedBy: r.stoppedBy,
      seconds: Math.round(info.seconds * 10) / 10,
      workers: info.workers,
    },
    training: { baseline: r.baselineTrain, start: r.start.figures, tuned: r.best.figures },
    heldOut: { tuned: r.heldOut.tuned, start: r.heldOut.start, baseline: r.heldOut.baseline },
    verdict: verdict(r.heldOut),
    changes: info.changes,
    tuned: Object.fromEntries(r.best.settings),
    front: r.front.map((c) => ({
      costVsOracle: c.figures.costVsOracle,
      violationRatio: c.figures.violationRatio,
      violationMinutes: c.figures.violationMinutes,
    })),
    candidates: r.tried.map((c) => ({
      costVsOracle: c.figures.costVsOracle,
      violationRatio: c.figures.violationRatio,
    })),
  };
}

function rows(
  named: [
    string,
    { costVsOracle: number; violationMinutes: number; violationRatio: number; scalingActions: number },
  ][],
) {
  const head = ['policy', 'x oracle', 'viol. min', 'of minutes', 'actions'];
  const cells = named.map(([n, f]) => [
    n,
    `${f.costVsOracle.toFixed(2)}x`,
    whole.format(f.violationMinutes),
    pct(f.violationRatio),
    whole.format(f.scalingActions),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}

export function formatTuneReport(r: TuneReport, startName: string): string {
  const change = r.changes.length
    ? r.changes.map(([k, a, b]) => `${k} ${a ?? 'default'} -> ${b}`).join(', ')
    : 'nothing: the starting policy was already the best the search found';
  return [
    `tune ${r.targetId} on ${r.trace}: trained on minutes 0-${whole.format(r.split)} (${days(r.split)}); judged on minutes ${whole.format(r.split)}-${whole.format(r.minutes)} (${days(r.minutes - r.split)}), which the search never saw`,
    `goal: the lowest cost with violation minutes within ${r.goal.source}`,
    `search: ${whole.format(r.search.candidates)} candidates in ${r.search.seconds.toFixed(1)} s on ${r.search.workers} worker thread${r.search.workers === 1 ? '' : 's'} (stopped: ${r.search.stoppedBy}); ${r.search.refused} refused by the policy rules`,
    '',
    'training part:',
    ...rows([
      ['tuned', r.training.tuned],
      [`starting (${startName})`, r.training.start],
      ['aws-target-tracking', r.training.baseline],
    ]),
    '',
    'held-out part:',
    ...rows([
      ['tuned', r.heldOut.tuned],
      [`starting (${startName})`, r.heldOut.start],
      ['aws-target-tracking', r.heldOut.baseline],
    ]),
    '',
    `verdict: ${r.verdict.sentence}`,
    `changed: ${change}`,
  ].join('\n');
}
