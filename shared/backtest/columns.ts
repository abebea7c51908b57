/** Plain-text tables of the backtest's outputs: a header, a rule, a row per item, columns aligned. */

import { maxOf } from '../arrays/extent.ts';

export interface Column<T> {
  head: string;
  cell: (row: T) => string;
  /** Left-aligned (names); numbers are right-aligned. */
  left?: boolean;
}

/** The table's lines: header, dashes, one line per row; two spaces between columns, no trailing blanks. */
export function renderColumns<T>(columns: readonly Column<T>[], rows: readonly T[]): string[] {
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const widths = columns.map((c, i) =>
    maxOf(
      cells.map((row) => row[i]!.length),
      c.head.length,
    ),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i]!.left ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.head)), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}
