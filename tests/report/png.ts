/**
 * Reads the PNG screenshots Chromium takes, so the browser tests can check them pixel by pixel
 * without a dependency: 8-bit RGB or RGBA, not interlaced (what Chromium writes), inflated with
 * node:zlib and unfiltered per the PNG spec (filters 0-4). Anything else throws.
 */
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, row by row. */
  data: Uint8Array;
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes one scanline's filter in place; `prev` is the unfiltered line above (zeros for the first). */
function unfilter(type: number, line: Uint8Array, prev: Uint8Array, bpp: number): void {
  if (type < 0 || type > 4) throw new Error(`png: unknown filter type ${type}`);
  if (type === 0) return;
  for (let i = 0; i < line.length; i++) {
    const left = i >= bpp ? line[i - bpp]! : 0;
    const up = prev[i]!;
    let add: number;
    if (type === 1) add = left;
    else if (type === 2) add = up;
    else if (type === 3) add = (left + up) >> 1;
    else add = paeth(left, up, i >= bpp ? prev[i - bpp]! : 0);
    line[i] = (line[i]! + add) & 255;
  }
}

export function decodePng(png: Uint8Array): Image {
  if (!SIGNATURE.every((b, i) => png[i] === b)) throw new Error('png: not a PNG file');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  for (let pos = 8; pos < png.length; ) {
    const length = view.getUint32(pos);
    const type = String.fromCharCode(...png.subarray(pos + 4, pos + 8));
    const body = png.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(pos + 8);
      height = view.getUint32(pos + 12);
      const [depth, colorType, , , interlace] = body.subarray(8, 13);
      channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0)
        throw new Error(
          `png: depth ${depth}, colour type ${colorType}, interlace ${interlace} not supported`,
        );
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    pos += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1);
    const line = raw.slice(start + 1, start + 1 + stride);
    unfilter(raw[start]!, line, prev, channels);
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data[o] = line[x * channels]!;
      data[o + 1] = line[x * channels + 1]!;
      data[o + 2] = line[x * channels + 2]!;
      data[o + 3] = channels === 4 ? line[x * channels + 3]! : 255;
    }
    prev = line;
  }
  return { width, height, data };
}
