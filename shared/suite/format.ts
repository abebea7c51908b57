/**
 * The suite's terminal output: one row per cell (trace, variant, Governor and target tracking
 * side by side, the verdict and, for a loss, why), then the summary line with wins, ties and
 * losses. Plain text, so it pastes into issues and reads the same in CI logs.
 */
import type { CellResult } from './cell.ts';

const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
const ratio = (x: number) => `${x.toFixed(2)}x`;

interface Column {
  head: string;
  cell: (c: CellResult) => string;
  left?: boolean;
}

const COLUMNS: Column[] = [
  { head: 'trace', cell: (c) => c.trace.replace(/\.csv$/, ''), left: true },
  { head: 'variant', cell: (c) => c.variant, left: true },
  { head: 'governor', cell: (c) => ratio(c.governor.costVsOracle) },
  { head: 'viol. min', cell: (c) => String(c.governor.violationMinutes) },
  { head: 'of min', cell: (c) => pct(c.governor.violationRatio) },
  { head: 'target tracking', cell: (c) => ratio(c.baseline.costVsOracle) },
  { head: 'viol. min ', cell: (c) => String(c.baseline.violationMinutes) },
  { head: 'of min ', cell: (c) => pct(c.baseline.violationRatio) },
  { head: 'verdict', cell: (c) => (c.outcome === 'loss' ? `LOSS: ${c.reason}` : c.outcome), left: true },
];

export interface SuiteSummary {
  wins: number;
  ties: number;
  losses: number;
}

export function summarize(cells: readonly CellResult[]): SuiteSummary {
  const count = (o: CellResult['outcome']) => cells.filter((c) => c.outcome === o).length;
  return { wins: count('win'), ties: count('tie'), losses: count('loss') };
}

export function summaryLine(cells: readonly CellResult[]): string {
  const s = summarize(cells);
  return `suite: ${cells.length} cells, governor dominates target tracking in ${s.wins}; ${s.wins} wins, ${s.ties} ties, ${s.losses} losses`;
}

export function formatSuite(cells: readonly CellResult[]): string {
  const rows = cells.map((c) => COLUMNS.map((col) => col.cell(c)));
  const widths = COLUMNS.map((col, i) => Math.max(col.head.length, ...rows.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (COLUMNS[i]!.left ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const notes = [...new Set(cells.flatMap((c) => c.notes.map((n) => `${c.trace} ${c.variant}: ${n}`)))];
  return [
    'cost is instance-minutes over the oracle\'s; "viol. min": minutes that broke the latency SLO',
    'a win: governor costs no more and breaks the SLO in no more minutes, one of the two strictly less',
    '',
    line(COLUMNS.map((c) => c.head.trim())),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...(notes.length > 0 ? ['', ...notes] : []),
    '',
    summaryLine(cells),
  ].join('\n');
}
