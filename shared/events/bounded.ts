/**
 * Text from an event (or any other sender Governor does not control) is cut before it reaches a
 * log line, an error message or a record: a fuzzed event with a 1 MB id or alarm name must cost
 * a log line, not a megabyte (the audit measured 132 MB of logs for 10,000 such events).
 *
 * clip('governor-chat-llm-p95', 12) -> 'governor-cha…[+9 chars]'; text within max is unchanged.
 */

/** The longest event-derived field a log line carries, in characters. */
export const MAX_LOGGED_FIELD = 200;

/** `text` cut to `max` characters, with a marker saying how many were cut. */
export function clip(text: string, max = MAX_LOGGED_FIELD): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…[+${text.length - max} chars]`;
}

/** JSON.stringify of any value, clipped: for values of unknown type and size in messages. */
export function clipJson(value: unknown, max = MAX_LOGGED_FIELD): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(text, max);
}
