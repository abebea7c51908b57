import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LONG_FIRST, longRank } from '../support/sequencer.ts';

describe('the long-first test order (tests/support/sequencer.ts)', () => {
  it.each(LONG_FIRST)('names a test file that exists: %s', (file) => {
    expect(existsSync(file)).toBe(true);
  });

  it('ranks a listed file by its place in the list, wherever the checkout is, and any other file -1', () => {
    expect(longRank(`/tmp/clone/${LONG_FIRST[1]}`)).toBe(1);
    expect(longRank(LONG_FIRST[0]!)).toBe(0);
    expect(longRank('/tmp/clone/tests/engine/panic.test.ts')).toBe(-1);
    expect(longRank('/tmp/clone/tests/backtest/xmix-reference-nasa.test.ts')).toBe(-1);
  });
});
