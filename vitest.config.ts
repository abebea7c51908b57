import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { splitTestFiles } from './tests/support/isolation.ts';
import { LongFirstSequencer } from './tests/support/sequencer.ts';

// Files that touch process-wide state run in a module graph of their own; the pure ones share
// their worker's modules (tests/support/isolation.ts says which and why).
const { isolated, shared } = splitTestFiles(fileURLToPath(new URL('.', import.meta.url)));

export default defineConfig({
  test: {
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
    projects: [
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
      { extends: true, test: { name: 'shared', include: shared, isolate: false } },
    ],
  },
});
