/**
 * What every self-contained page of the project shares (the backtest report, shadow-report's):
 * uPlot's script and stylesheet read from node_modules at render time, text kept from closing
 * its element early, and the Content-Security-Policy that lets only the page's own scripts run.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * No network at view time, whatever a script tries: `default-src 'none'` with inline styles,
 * data: images, and only the page's scripts, named by their SHA-256, so even markup that slipped
 * into the page could not run an inline handler (onerror=...).
 */
export function contentSecurityPolicy(scripts: string[]): string {
  const hashes = scripts.map(
    (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`,
  );
  return `default-src 'none'; script-src ${hashes.join(' ')}; style-src 'unsafe-inline'; img-src data:`;
}

/** Keeps inline text from closing its element early (`</script>` inside a string, say). */
export const inline = (text: string, tag: 'script' | 'style'): string =>
  text.replaceAll(`</${tag}`, `<\\/${tag}`);

/** uPlot's script and stylesheet, as installed. */
export function uplotFiles(): { js: string; css: string } {
  return {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
}
