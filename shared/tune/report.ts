/**
 * What `governor tune` prints and writes as JSON, in the objective's terms: what it trained and
 * judged on, the objective and the goal, the search, the three policies on the training part
 * and on the held-out part side by side (attainment against the objective, cost), the verdict,
 * what was written and what changed.
 */
import { maxOf } from '../arrays/extent.ts';
import type { PolicySummary } from '../backtest/types.ts';
import type { Figures } from './evaluate.ts';
import type { KnobValue } from './knobs.ts';
import type { TuneResult } from './tune.ts';
import type { Verdict } from './verdict.ts';

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const days = (minutes: number) => `${(minutes / 1440).toFixed(1)} days`;

export interface TuneReport {
  trace: string;
  targetId: string;
  minutes: number;
  split: number;
  /** The target's SLO objective, and in words ("99.5 % of minutes within the SLO over 30 days"). */
  objective: { minutes: number; requests: number | null; text: string };
  goal: {
    maxViolationRatio: number;
    maxRequestsViolationRatio: number | null;
    margin: number;
    source: string;
  };
  search: {
    candidates: number;
    refused: number;
    /**
     * Candidates stopped before the end of the training part because they could no longer
     * qualify (shared/tune/early-stop.ts); they are in neither the front nor `candidates`.
     */
    stoppedEarly: number;
    stoppedBy: string;
    seed: number;
    seconds: number;
    workers: number;
  };
  training: { baseline: Figures; start: Figures; tuned: Figures };
  heldOut: { tuned: PolicySummary; start: PolicySummary; baseline: PolicySummary };
  verdict: Verdict;
  changes: [string, KnobValue | undefined, KnobValue][];
  tuned: Record<string, KnobValue>;
  front: { costVsOracle: number; violationRatio: number; violationMinutes: number }[];
  candidates: { costVsOracle: number; violationRatio: number }[];
}

export interface ReportInfo {
  trace: string;
  targetId: string;
  objectiveText: string;
  seed: number;
  seconds: number;
  workers: number;
  changes: TuneReport['changes'];
}

export function toTuneReport(r: TuneResult, info: ReportInfo): TuneReport {
  return {
    trace: info.trace,
    targetId: info.targetId,
    minutes: r.heldOut.minutes,
    split: r.split,
    objective: {
      minutes: r.goal.objective.minutes,
      requests: r.goal.objective.requests ?? null,
      text: info.objectiveText,
    },
    goal: {
      maxViolationRatio: r.goal.maxViolationRatio,
      maxRequestsViolationRatio: r.goal.maxRequestsViolationRatio ?? null,
      margin: r.goal.margin,
      source: r.goal.source,
    },
    search: {
      candidates: r.tried.length + r.refused,
      refused: r.refused,
      stoppedEarly: r.tried.filter((c) => c.figures.stopped).length,
      stoppedBy: r.stoppedBy,
      seed: info.seed,
      seconds: Math.round(info.seconds * 10) / 10,
      workers: info.workers,
    },
    training: { baseline: r.baselineTrain, start: r.start.figures, tuned: r.best.figures },
    heldOut: { tuned: r.heldOut.tuned, start: r.heldOut.start, baseline: r.heldOut.baseline },
    verdict: r.heldOut.verdict,
    changes: info.changes,
    tuned: Object.fromEntries(r.best.settings),
    front: r.front.map((c) => ({
      costVsOracle: c.figures.costVsOracle,
      violationRatio: c.figures.violationRatio,
      violationMinutes: c.figures.violationMinutes,
    })),
    candidates: r.tried
      .filter((c) => !c.figures.stopped)
      .map((c) => ({
        costVsOracle: c.figures.costVsOracle,
        violationRatio: c.figures.violationRatio,
      })),
  };
}

/** One row of a part's table: what the text and the HTML report show for a policy. */
export interface Row {
  name: string;
  costVsOracle: number;
  /** 1 - violation minutes / minutes; held out, as the backtest judged it (its worst window when longer than the window). */
  attainment: number;
  /** 1 - requests in violating minutes / requests (held out: as judged). */
  requestsAttainment: number;
  /** Held out and longer than the objective's window: the whole part's share of minutes. */
  wholePart?: number;
  violationMinutes: number;
  scalingActions: number;
  /** The training part only: the attainment of its worst fold. */
  worstFold?: number;
}

type Common = Pick<Figures, 'costVsOracle' | 'violationRatio' | 'violationMinutes' | 'scalingActions'>;

const row = (name: string, x: Common, requestsViolationRatio: number): Row => ({
  name,
  costVsOracle: x.costVsOracle,
  attainment: 1 - x.violationRatio,
  requestsAttainment: 1 - requestsViolationRatio,
  violationMinutes: x.violationMinutes,
  scalingActions: x.scalingActions,
});

const fromFigures = (name: string, f: Figures): Row => ({
  ...row(name, f, f.requestsViolationRatio),
  worstFold: 1 - maxOf(f.folds.map((x) => x.violationRatio)),
});

/** A held-out summary as runBacktest judged it: on a part longer than the window, its worst window. */
const fromSummary = (name: string, s: PolicySummary): Row => ({
  ...row(name, s, s.requestsInViolationRatio),
  ...(s.attainment !== undefined ? { attainment: s.attainment } : {}),
  ...(s.requestsAttainment !== undefined ? { requestsAttainment: s.requestsAttainment } : {}),
  ...(s.traceAttainment !== undefined ? { wholePart: s.traceAttainment } : {}),
});

/** The rows of the training or held-out part: tuned, starting, target tracking. */
export function partRows(r: TuneReport, part: 'training' | 'heldOut', startName: string): Row[] {
  const names = ['tuned', `starting (${startName})`, 'aws-target-tracking'] as const;
  if (part === 'training') {
    const t = r.training;
    return [
      fromFigures(names[0], t.tuned),
      fromFigures(names[1], t.start),
      fromFigures(names[2], t.baseline),
    ];
  }
  const h = r.heldOut;
  return [fromSummary(names[0], h.tuned), fromSummary(names[1], h.start), fromSummary(names[2], h.baseline)];
}

function table(rows: Row[], requests: boolean): string[] {
  const folds = rows.some((x) => x.worstFold !== undefined);
  const head = [
    'policy',
    'x oracle',
    'attainment',
    ...(folds ? ['worst fold'] : []),
    ...(requests ? ['of requests'] : []),
    'viol. min',
    'actions',
  ];
  const cells = rows.map((x) => [
    x.name,
    `${x.costVsOracle.toFixed(2)}x`,
    pct(x.attainment),
    ...(folds ? [pct(x.worstFold ?? Number.NaN)] : []),
    ...(requests ? [pct(x.requestsAttainment)] : []),
    whole.format(x.violationMinutes),
    whole.format(x.scalingActions),
  ]);
  const widths = head.map((h, i) =>
    maxOf(
      cells.map((c) => c[i]!.length),
      h.length,
    ),
  );
  const line = (c: string[]) =>
    c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}

export const changeList = (r: TuneReport): string =>
  r.changes.length
    ? r.changes.map(([k, a, b]) => `${k} ${a ?? 'default'} -> ${b}`).join(', ')
    : 'nothing: the starting policy was already the best the search found';

/** Under the held-out table when it is longer than the objective's window: what its attainment is. */
export function windowNote(rows: Row[]): string[] {
  if (!rows.some((x) => x.wholePart !== undefined)) return [];
  const whole = rows.map((x) => `${x.name} ${pct(x.wholePart ?? x.attainment)}`).join(', ');
  return [
    `the held-out part is longer than the objective's window: attainment is each policy's worst window (the whole part: ${whole})`,
  ];
}

/** The search line's account of the candidates stopped early. */
export const stoppedEarly = (n: number): string =>
  `${whole.format(n)} stopped early, once dearer than the starting policy, saving less than the best candidate so far, or over a fold's budget (--full-front runs them to the end)`;

export function formatTuneReport(r: TuneReport, startName: string): string {
  const requests = r.objective.requests !== null;
  const s = r.search;
  const heldOut = partRows(r, 'heldOut', startName);
  return [
    `tune ${r.targetId} on ${r.trace}: trained on minutes 0-${whole.format(r.split)} (${days(r.split)}); judged on minutes ${whole.format(r.split)}-${whole.format(r.minutes)} (${days(r.minutes - r.split)}), which the search never saw`,
    `objective: ${r.objective.text}; goal: the lowest cost with ${r.goal.source}`,
    `search: ${whole.format(s.candidates)} candidates, seed ${s.seed} (stopped: ${s.stoppedBy}); ${s.refused} refused by the policy rules; ${stoppedEarly(s.stoppedEarly)}; ${s.seconds.toFixed(1)} s on ${s.workers} worker thread${s.workers === 1 ? '' : 's'}`,
    '',
    'training part:',
    ...table(partRows(r, 'training', startName), requests),
    '',
    'held-out part:',
    ...table(heldOut, requests),
    ...windowNote(heldOut),
    '',
    `verdict: ${r.verdict.sentence}`,
    r.verdict.written,
    `${r.verdict.kept ? 'the search proposed (not written)' : 'changed'}: ${changeList(r)}`,
  ].join('\n');
}
