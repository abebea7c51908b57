/**
 * The fits a worker shares between the cells of the trace it is on (contentFits): the memo of
 * the trace it runs now, a fresh one when it moves to another trace, so memory holds one
 * trace's fits at a time. Sharing is by content, so which cells a worker happens to run decides
 * only how much is reused, never a figure.
 */
import { type ContentFits, contentFits } from '../backtest/policies/content-fits.ts';

export function traceFits(): (tracePath: string) => ContentFits {
  let current: { tracePath: string; fits: ContentFits } | null = null;
  return (tracePath) => {
    if (current?.tracePath !== tracePath) current = { tracePath, fits: contentFits() };
    return current.fits;
  };
}
