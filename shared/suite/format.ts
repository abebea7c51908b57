/**
 * The suite's terminal output: one row per cell (trace, variant, Governor's cost and attainment,
 * target tracking at its best target, the saving at equal SLO, the verdict and, for a loss,
 * why), then the summary line with wins, losses and the median saving. Plain text, so it pastes
 * into issues and reads the same in CI logs.
 */
import { maxOf } from '../arrays/extent.ts';
import { objectiveText } from '../backtest/attainment.ts';
import type { CellResult } from './cell.ts';

const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const ratio = (x: number) => `${x.toFixed(2)}x`;
/** A saving at equal SLO: "12.3 %", "-4.0 %"; "n/a" where no swept target reaches Governor's attainment. */
export const savingText = (x: number | null): string => (x === null ? 'n/a' : `${(100 * x).toFixed(1)} %`);

interface Column {
  head: string;
  cell: (c: CellResult) => string;
  left?: boolean;
}

const COLUMNS: Column[] = [
  { head: 'trace', cell: (c) => c.trace.replace(/\.csv$/, ''), left: true },
  { head: 'variant', cell: (c) => c.variant, left: true },
  { head: 'governor', cell: (c) => ratio(c.governor.costVsOracle) },
  { head: 'attained', cell: (c) => pct(c.governor.attainment) },
  { head: 'best target', cell: (c) => (c.best ? `${c.best.fraction} x sat.` : 'none meets') },
  { head: 'TT at best', cell: (c) => (c.best ? ratio(c.best.costVsOracle) : '-') },
  { head: 'attained ', cell: (c) => (c.best ? pct(c.best.attainment) : '-') },
  { head: 'saving at equal SLO', cell: (c) => savingText(c.savingAtEqualSlo) },
  { head: 'verdict', cell: (c) => (c.outcome === 'loss' ? `LOSS: ${c.reason}` : c.outcome), left: true },
];

export interface SuiteSummary {
  wins: number;
  losses: number;
  /** Median saving at equal SLO over the cells where target tracking reaches Governor's attainment; null: none does. */
  medianSaving: number | null;
  /** Cells where no swept target reaches Governor's attainment (no saving to take a median of). */
  unreachable: number;
}

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function summarize(cells: readonly CellResult[]): SuiteSummary {
  const savings = cells.flatMap((c) => (c.savingAtEqualSlo === null ? [] : [c.savingAtEqualSlo]));
  return {
    wins: cells.filter((c) => c.outcome === 'win').length,
    losses: cells.filter((c) => c.outcome === 'loss').length,
    medianSaving: median(savings),
    unreachable: cells.length - savings.length,
  };
}

export function summaryLine(cells: readonly CellResult[]): string {
  const s = summarize(cells);
  const unreachable =
    s.unreachable > 0 ? `; in ${s.unreachable} no target tracking target reaches governor's attainment` : '';
  return `suite: ${cells.length} cells, ${s.wins} wins, ${s.losses} losses; median saving at equal SLO ${savingText(s.medianSaving)}${unreachable}`;
}

export function formatSuite(cells: readonly CellResult[]): string {
  const rows = cells.map((c) => COLUMNS.map((col) => col.cell(c)));
  const widths = COLUMNS.map((col, i) =>
    maxOf(
      rows.map((r) => r[i]!.length),
      col.head.length,
    ),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => (COLUMNS[i]!.left ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const notes = [...new Set(cells.flatMap((c) => c.notes.map((n) => `${c.trace} ${c.variant}: ${n}`)))];
  const objective = cells[0] ? objectiveText(cells[0].objective) : 'the objective';
  const longer = [...new Set(cells.filter((c) => c.minutes > c.objective.windowMinutes).map((c) => c.trace))];
  const windowDays = cells[0] ? cells[0].objective.windowMinutes / 1440 : 30;
  return [
    `cost is instance-minutes over the oracle's; "attained": share of minutes within the SLO (objective ${objective})`,
    ...(longer.length > 0
      ? [
          `longer than the objective's window, so "attained" is the worst ${windowDays}-day window: ${longer.join(', ')}`,
        ]
      : []),
    'best target: the cheapest target tracking target (0.1-1.0 x saturation) that meets the objective on the same run',
    'a win: governor meets the objective and costs no more than target tracking at its best target (or meets it where no target can)',
    '',
    line(COLUMNS.map((c) => c.head.trim())),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...(notes.length > 0 ? ['', ...notes] : []),
    '',
    summaryLine(cells),
  ].join('\n');
}
