/**
 * A caught error as text for a record, an outcome or a log line: `Name: message` for an Error,
 * the value as a string otherwise. new TypeError('bad') -> 'TypeError: bad'; 'boom' -> 'boom'.
 * Callers that quote what a sender controls clip it (shared/events/bounded.ts).
 */
export const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** errorText's first line, for a field that must stay one line: 'Error: a\nb' -> 'Error: a'. */
export const errorLine = (e: unknown): string => errorText(e).split('\n')[0] ?? '';
