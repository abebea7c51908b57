import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './tests/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    // Every SDK call the tests make or record is checked against AWS's own API model (botocore's
    // service-2.json.gz): tests/support/aws-model-setup.ts. Skipped, in one line, without botocore.
    globalSetup: ['tests/support/aws-model-global.ts'],
    setupFiles: ['tests/support/aws-model-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one fork on a 2-core machine. Many
    // tests wait on moto or a child process, so two forks keep both cores busy.
    maxWorkers: 2,
    // The longest files first (tests/support/sequencer.ts), so neither worker ends on one alone.
    sequence: { sequencer: LongFirstSequencer },
  },
});
