/**
 * Text for the report: numbers as an operator reads them, and escaping for everything that
 * comes from outside (trace names, policy names, decision messages). Fixed locale (en-US) so a
 * report reads the same wherever it is rendered and tests can pin the output.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an HTML element or a quoted attribute. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * JSON safe inside `<script type="application/json">`: `<`, `>` and `&` become \u escapes so
 * no string can close the element (`</script>`) or open a comment; U+2028/2029 too, for old
 * parsers. JSON.parse reads the escapes back as the same characters.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const grouped = (digits: number) =>
  new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** 1234567.8 -> "1,234,568"; with digits 1 -> "1,234,567.8". */
export const formatNumber = (n: number, digits = 0): string => grouped(digits).format(n);

/** 1234.5 -> "$1,234.50". */
export const formatUsd = (n: number): string => `$${grouped(2).format(n)}`;

/** Cost against the oracle: 1.234 -> "1.23×". */
export const formatRatio = (n: number): string => `${grouped(2).format(n)}×`;

/**
 * A share in [0, 1] as a percentage with two decimals; a share too small to show as 0.01 %
 * but not zero reads "< 0.01 %", so one violating minute in 40,000 is not printed as 0.
 */
export function formatShare(share: number): string {
  if (share > 0 && share < 0.00005) return '< 0.01 %';
  return `${grouped(2).format(share * 100)} %`;
}

/** Minutes as a duration: 38,880 -> "27 d", 200 -> "3 h 20 min", 45 -> "45 min". */
export function formatDuration(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = Math.round(minutes % 60);
  const parts = [days > 0 ? `${days} d` : '', hours > 0 ? `${hours} h` : '', mins > 0 ? `${mins} min` : ''];
  return parts.filter(Boolean).join(' ') || '0 min';
}
