import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { needsIsolation, splitTestFiles } from '../support/isolation.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const noSupport = () => '';

describe('which test files share a worker’s modules (tests/support/isolation.ts)', () => {
  it.each([
    ["import { mockClient } from 'aws-sdk-client-mock';", 'an SDK client mock'],
    ["import { SSMClient } from '@aws-sdk/client-ssm';", 'a real SDK client'],
    ["import { handler } from '#functions/evaluate/handler.ts';", 'a Lambda handler'],
    ["import { handler } from '../../functions/evaluate/handler.ts';", 'a handler by relative path'],
    ['process.env.AWS_REGION = "us-east-1";', 'an environment variable'],
    ['vi.useFakeTimers();', 'fake timers'],
    ["vi.mock('node:fs');", 'a module mock'],
    ["import { spawnSync } from 'node:child_process';", 'a child process'],
    ['const browser = await chromium.launch();', 'a browser'],
  ])('isolates a file with %s (%s)', (source) => {
    expect(needsIsolation(source, noSupport)).toBe(true);
  });

  it('isolates a file through the support module it imports', () => {
    const source = "import { startMoto } from '../support/moto.ts';";
    expect(
      needsIsolation(source.replace('moto', 'server'), (name) =>
        name === 'server.ts' ? 'spawn(moto_server)' : '',
      ),
    ).toBe(true);
    expect(needsIsolation("import { x } from '../support/plain.ts';", () => 'export const x = 1;')).toBe(
      false,
    );
  });

  it('shares a file of pure calls', () => {
    const source =
      "import { decide } from '#shared/engine/decide.ts';\nexpect(decide(input, 0).desired).toBe(3);";
    expect(needsIsolation(source, noSupport)).toBe(false);
  });

  it('splits every test file once, and keeps the files that leaked into later ones isolated', () => {
    const { isolated, shared } = splitTestFiles(root);
    expect(isolated.length + shared.length).toBe(new Set(isolated.concat(shared)).size);
    expect(shared.length).toBeGreaterThan(100);
    // Each of these failed when run after the others in one module graph (a stubbed client's
    // prototype, a handler's client on another file's moto port): measured, not guessed.
    expect(isolated).toEqual(
      expect.arrayContaining([
        'tests/aws/retry.test.ts',
        'tests/aws/timeouts.test.ts',
        'tests/functions/concurrency.test.ts',
        'tests/forecast-aws/adapters.test.ts',
        'tests/history/endpoint.test.ts',
        'tests/integration/live-moto.test.ts',
        'tests/integration/slo-moto.test.ts',
      ]),
    );
    expect(shared).toContain('tests/engine/properties.test.ts');
  });
});
