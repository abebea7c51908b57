/**
 * Checks computed on a screenshot (png.ts), robust across machines: which colours appear in a
 * box, and where runs of a colour lie along a line. No golden image: fonts, anti-aliasing and
 * the GPU differ between machines, so a test asks about colours the page draws solid (line and
 * bar colours, within a small tolerance) and about positions it can compute from the data.
 */
import type { Image } from './png.ts';

/** A test on one pixel's red, green and blue. */
export type Match = (r: number, g: number, b: number) => boolean;

/** A box in image pixels (CSS pixels at a device scale factor of 1). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** '#0072B2' within `tolerance` on each channel: a line's solid core, not its blended edge. */
export function near(hex: string, tolerance = 8): Match {
  const [R, G, B] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [
    number,
    number,
    number,
  ];
  return (r, g, b) =>
    Math.abs(r - R) <= tolerance && Math.abs(g - G) <= tolerance && Math.abs(b - B) <= tolerance;
}

/**
 * Clearly more blue than red, and light or mid-toned: the forecast band's fill and strokes. On a
 * chart showing only the oracle's grey floor and the black demand (no policy line, no marker),
 * nothing else is.
 */
export const blueTinted: Match = (r, _g, b) => b - r >= 20 && b >= 150;

/** How many pixels in `box` (cut to the image) match. */
export function countPixels(image: Image, box: Box, match: Match): number {
  const x0 = Math.max(0, Math.round(box.x));
  const y0 = Math.max(0, Math.round(box.y));
  const x1 = Math.min(image.width, Math.round(box.x + box.width));
  const y1 = Math.min(image.height, Math.round(box.y + box.height));
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const o = (y * image.width + x) * 4;
      if (match(image.data[o]!, image.data[o + 1]!, image.data[o + 2]!)) n++;
    }
  }
  return n;
}

/** Runs of matching pixels along row `y` between x0 and x1, as [first, last + 1). */
export function runsAlong(image: Image, y: number, x0: number, x1: number, match: Match): [number, number][] {
  const runs: [number, number][] = [];
  const row = Math.round(y);
  for (let x = Math.max(0, Math.round(x0)); x < Math.min(image.width, Math.round(x1)); x++) {
    const o = (row * image.width + x) * 4;
    if (!match(image.data[o]!, image.data[o + 1]!, image.data[o + 2]!)) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === x) last[1] = x + 1;
    else runs.push([x, x + 1]);
  }
  return runs;
}

/**
 * Pixel spans expected for [first, last] minute runs drawn on an x axis from `min` to `max`
 * minutes over `width` pixels (a run covers [first, last + 1) minutes, and at least a pixel, as
 * the strip draws it). Overlapping spans merge; spans wholly outside the axis are left out.
 */
export function expectedSpans(
  runs: readonly [number, number][],
  min: number,
  max: number,
  width: number,
): [number, number][] {
  const px = (minute: number) => ((minute - min) / (max - min)) * width;
  const spans: [number, number][] = [];
  for (const [a, b] of runs) {
    if (b + 1 < min || a > max) continue;
    const span: [number, number] = [Math.max(0, px(a)), Math.min(width, Math.max(px(b + 1), px(a) + 1))];
    const last = spans[spans.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else spans.push(span);
  }
  return spans;
}
