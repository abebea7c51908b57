import { describe, expect, it } from 'vitest';
import { chromiumGate } from './chromium.ts';

describe('the Chromium gate of the browser test', () => {
  it.each([
    {
      case: 'runs the browser test when Chromium is installed',
      env: {},
      exists: true,
      want: { available: true, mustFail: false },
    },
    {
      case: 'skips on a developer machine without Chromium',
      env: {},
      exists: false,
      want: { available: false, mustFail: false },
    },
    {
      case: 'fails in CI without Chromium',
      env: { CI: 'true' },
      exists: false,
      want: { available: false, mustFail: true },
    },
    {
      case: 'runs in CI with Chromium',
      env: { CI: 'true' },
      exists: true,
      want: { available: true, mustFail: false },
    },
  ])('$case', ({ env, exists, want }) => {
    const gate = chromiumGate(env, '/usr/bin/chromium', () => exists);
    expect({ available: gate.available, mustFail: gate.mustFail }).toEqual(want);
    if (!exists) expect(gate.message).toContain('apt-get install -y chromium');
    else expect(gate.message).toBe('');
  });
});
