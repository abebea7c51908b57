/**
 * Compact encoding of the report's per-minute series. A 27-day trace has ~40,000 minutes and a
 * report carries ~20 series (demand, oracle, forecast, three per policy): as plain JSON that is
 * ~2.5 MB; encoded here the NASA trace's demand takes 57 kB and a policy's capacity 8-20 kB (a
 * flat one a few bytes), with nothing downsampled. The browser decodes with `decodeSeries`,
 * bundled into the page from this very module, so both sides share one tested implementation.
 *
 * Scheme: values are quantized to `decimals` (integers stay exact), delta-coded, and each
 * delta written as a varint token `zigzag(delta) * 2 + run`; when `run` is 1 the next varint
 * holds how many times the delta repeats, minus `MIN_RUN`. Capacity holds for minutes to hours,
 * so a constant stretch costs 2-3 bytes; demand, whose minute-to-minute deltas are mostly
 * under 32, costs about 1 byte a minute. Bytes are base64 text.
 */

export interface EncodedSeries {
  /** Values are integers once multiplied by 10^decimals. */
  decimals: number;
  /** How many values the series holds (a check for the decoder). */
  length: number;
  /** Base64 of the varint tokens. */
  data: string;
}

/** A repeat shorter than this is cheaper as plain tokens (a run costs two varints). */
const MIN_RUN = 2;

/**
 * Decimals that keep three significant digits of the series' largest magnitude: a forecast
 * peaking at 512 req/min is stored to 1 req/min, one peaking at 4.2 to 0.01. Whole numbers
 * always keep 0 decimals (exact).
 */
export function chooseDecimals(values: readonly number[]): number {
  let maxAbs = 0;
  let whole = true;
  for (const v of values) {
    if (!Number.isFinite(v)) continue; // encodeSeries rejects it, naming its index
    if (!Number.isInteger(v)) whole = false;
    maxAbs = Math.max(maxAbs, Math.abs(v));
  }
  if (whole || maxAbs === 0) return 0;
  return Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(maxAbs))));
}

// Arithmetic, not bitwise: counts may exceed 2^31.
const zigzag = (n: number): number => (n >= 0 ? 2 * n : -2 * n - 1);

function pushVarint(out: number[], n: number): void {
  let rest = n;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

function quantize(values: readonly number[], scale: number): number[] {
  return values.map((v, i) => {
    const q = Math.round(v * scale);
    if (!Number.isFinite(q)) throw new RangeError(`value at index ${i} is ${v}; expected a finite number`);
    return q;
  });
}

/** Encodes finite numbers; throws on NaN or Infinity (the caller names the series). */
export function encodeSeries(values: readonly number[]): EncodedSeries {
  const decimals = chooseDecimals(values);
  const q = quantize(values, 10 ** decimals);
  const bytes: number[] = [];
  let i = 0;
  while (i < q.length) {
    const delta = q[i]! - (i === 0 ? 0 : q[i - 1]!);
    let run = 1;
    while (i + run < q.length && q[i + run]! - q[i + run - 1]! === delta) run++;
    if (run >= MIN_RUN) {
      pushVarint(bytes, zigzag(delta) * 2 + 1);
      pushVarint(bytes, run - MIN_RUN);
    } else {
      pushVarint(bytes, zigzag(delta) * 2);
    }
    i += run;
  }
  return { decimals, length: values.length, data: Buffer.from(bytes).toString('base64') };
}

/**
 * The inverse of `encodeSeries`. Runs in the browser too: it uses only `atob`, which Node and
 * every browser provide, and returns a Float64Array (what uPlot reads fastest).
 */
export function decodeSeries(encoded: EncodedSeries): Float64Array {
  const text = atob(encoded.data);
  const out = new Float64Array(encoded.length);
  const scale = 10 ** encoded.decimals;
  let pos = 0;
  const next = (): number => {
    let value = 0;
    let factor = 1;
    for (;;) {
      const byte = text.charCodeAt(pos++);
      value += (byte & 127) * factor;
      if (byte < 128) return value;
      factor *= 128;
    }
  };
  let q = 0;
  let i = 0;
  while (pos < text.length) {
    const token = next();
    const zz = Math.floor(token / 2);
    const delta = zz % 2 === 0 ? zz / 2 : -(zz + 1) / 2;
    const run = token % 2 === 1 ? next() + MIN_RUN : 1;
    for (let k = 0; k < run; k++) {
      q += delta;
      out[i++] = q / scale;
    }
  }
  if (i !== encoded.length) throw new RangeError(`decoded ${i} values; the series says ${encoded.length}`);
  return out;
}
