/**
 * Trace files: `minute,requests,input_tokens,output_tokens` or `second,...` (the format of the
 * bundled traces/). Per-second traces are summed into minutes; seconds past the last full
 * minute are dropped (BACKTEST.md, "Units and inputs"). Pure: takes text, returns a trace or
 * throws TraceError with the line and the fix.
 *
 * A missing bin (minute 6 after minute 4) is refused naming it, unless `fillGaps` reads it as 0
 * requests (`--fill-gaps`); a bin smaller than the one before is out of order either way. A
 * CloudWatch export (Timestamp,Value or Label,Timestamps,Values) is pointed to `governor
 * history`, which reads the same data from CloudWatch and writes it as a trace.
 */

export interface Trace {
  /** Where it came from, for reports. */
  name: string;
  /** The file's own resolution before aggregation. */
  resolution: 'minute' | 'second';
  /** Requests per minute, r(m) for m = 0 .. n-1. */
  requests: number[];
  /** Input and output tokens per minute, or null when the trace has none. */
  inputTokens: number[] | null;
  outputTokens: number[] | null;
}

export class TraceError extends Error {
  override name = 'TraceError';
}

export interface TraceOptions {
  /** Read missing bins as 0 requests (and 0 tokens) instead of refusing the trace. */
  fillGaps?: boolean;
}

/** The option that fills gaps, for the message that suggests it. */
export const FILL_GAPS_FLAG = '--fill-gaps';

/** A header or first row that is CloudWatch's, not a trace's: timestamps and values. */
const CLOUDWATCH_SHAPED = /timestamp|\bvalues?\b|^label,|^\d{4}-\d\d-\d\d[t ]/i;

function headerProblem(header: string): string {
  const got = `line 1: header is "${header.slice(0, 80)}"`;
  if (CLOUDWATCH_SHAPED.test(header))
    return `${got}, a CloudWatch export (timestamps and values), not a trace: governor history --target ID --policy FILE --days N --out trace.csv reads the same metric from CloudWatch and writes a trace (docs/history.md)`;
  return `${got}; expected one of ${HEADERS.map((h) => `"${h}"`).join(', ')}`;
}

/** "minute 5" or "minutes 5-7": the bins a gap leaves out, [from, to). */
const missing = (unit: string, from: number, to: number) =>
  to - from === 1 ? `${unit} ${from} is` : `${unit}s ${from}-${to - 1} are`;

const HEADERS = [
  'minute,requests,input_tokens,output_tokens',
  'second,requests,input_tokens,output_tokens',
  'minute,requests',
  'second,requests',
];

function cell(raw: string | undefined, line: number, column: string): number {
  const text = (raw ?? '').trim();
  if (text === '') {
    throw new TraceError(`line ${line}: ${column} is empty; every bin needs a count (write 0 for none)`);
  }
  // Digits only: Number() would also take "1e2", "0x10" and " 7 " in other shapes.
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new TraceError(`line ${line}: ${column} is "${text}"; counts must be whole numbers of 0 or more`);
  }
  return value;
}

function sumInto(target: number[], index: number, value: number): void {
  target[index] = (target[index] ?? 0) + value;
}

export function parseTrace(text: string, name: string, options: TraceOptions = {}): Trace {
  if (text.trim() === '')
    throw new TraceError(`the file is empty; it needs the header "${HEADERS[0]}" and rows`);
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? '').trim().replace(/^\uFEFF/, '');
  if (!HEADERS.includes(header)) throw new TraceError(headerProblem(header));
  const columns = header.split(',').length;
  const withTokens = columns === 4;

  const resolution = header.startsWith('second') ? 'second' : 'minute';
  const perMinute = resolution === 'second' ? 60 : 1;
  const requests: number[] = [];
  const input: number[] = [];
  const output: number[] = [];
  let bins = 0;
  let tokenRows: boolean | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const cols = line.split(',');
    if (cols.length !== columns)
      throw new TraceError(`line ${i + 1}: ${cols.length} columns; the header has ${columns}`);
    const index = cell(cols[0], i + 1, resolution);
    if (index < bins)
      throw new TraceError(
        `line ${i + 1}: ${resolution} ${index} out of order; expected ${bins} (every bin from 0, in order)`,
      );
    if (index > bins && !options.fillGaps)
      throw new TraceError(
        `line ${i + 1}: ${missing(resolution, bins, index)} missing (this row is ${resolution} ${index}): add ${index - bins === 1 ? 'it' : 'them'} with 0 requests, or run with ${FILL_GAPS_FLAG} to read missing ${resolution}s as 0`,
      );
    // With fillGaps, the bins in between count nothing: their minutes read 0 below (dense()).
    bins = index;
    const minute = Math.floor(bins / perMinute);
    sumInto(requests, minute, cell(cols[1], i + 1, 'requests'));
    if (withTokens) {
      // Token columns hold a count in every row or in none (the NASA trace has the header and
      // no tokens): a row without them among rows with them would skew token-aware work.
      const hasTokens = (cols[2] ?? '').trim() !== '' || (cols[3] ?? '').trim() !== '';
      tokenRows ??= hasTokens;
      if (hasTokens !== tokenRows)
        throw new TraceError(
          `line ${i + 1}: ${hasTokens ? 'has' : 'has no'} token counts where line 2 ${tokenRows ? 'has' : 'has none'}; give every row tokens, or none`,
        );
      if (hasTokens) {
        sumInto(input, minute, cell(cols[2], i + 1, 'input_tokens'));
        sumInto(output, minute, cell(cols[3], i + 1, 'output_tokens'));
      }
    }
    bins++;
  }
  const minutes = Math.floor(bins / perMinute);
  if (minutes === 0) {
    throw new TraceError(
      `the trace has no ${resolution === 'second' ? 'full minute' : 'rows'}; it needs at least one minute of data`,
    );
  }
  // Minutes no row reached (a filled gap) are 0, not holes.
  const dense = (counts: number[]) => Array.from({ length: minutes }, (_, m) => counts[m] ?? 0);
  if (dense(requests).every((r) => r === 0))
    throw new TraceError('the trace has no requests at all; nothing to replay');
  return {
    name,
    resolution,
    requests: dense(requests),
    inputTokens: tokenRows ? dense(input) : null,
    outputTokens: tokenRows ? dense(output) : null,
  };
}
