/**
 * `npm run test:fast`: the unit tests without what takes minutes. Left out: every test on moto
 * (tests/integration, the *-moto and moto files, the ones that start moto_server), the Chromium
 * ones (the reports' browser and screenshot tests), the whole-trace backtest, suite and tune runs
 * (tests/backtest, tests/suite, tests/tune), and the other files that took over 30 s each in a
 * full run: cfn-lint (Python), the esbuild bundles, the exhaustive failover properties, the
 * 500- and 1,000-target scale and policy-part tests, the forecast calibration over every trace.
 * `npm test` runs everything.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

export const SLOW = [
  'tests/integration/**',
  'tests/**/*moto*.test.ts',
  'tests/functions/concurrency.test.ts',
  'tests/history/endpoint.test.ts',
  'tests/cli/scripts.test.ts',
  'tests/**/browser.test.ts',
  'tests/report/chromium.test.ts',
  'tests/report/cost-chart.test.ts',
  'tests/report/screenshots.test.ts',
  'tests/backtest/**',
  'tests/suite/**',
  'tests/tune/**',
  'tests/template/cfn-lint.test.ts',
  'tests/template/bundle.test.ts',
  'tests/failover/properties.test.ts',
  'tests/scale/**',
  'tests/functions/policy-parts.test.ts',
  'tests/cli/policy-split.test.ts',
  'tests/forecast/calibration.test.ts',
];

export default mergeConfig(base, defineConfig({ test: { exclude: SLOW } }));
