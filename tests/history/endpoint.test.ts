/**
 * `governor history` against an AWS_ENDPOINT_URL that refuses the connection or stalls, through
 * main() and the real SDK stack (no mocks): a stalled endpoint "answered too slowly", naming the
 * limit and the flag that raises it, and is not said to be unreachable; a refused one "cannot be
 * reached"; both exit 1 (a run that could not finish), as `governor invoke` exits for the same
 * endpoint (tests/functions/invoke-cli.test.ts). Issue 18, item 6.
 *
 * The stall is a loopback server that takes connections and never answers
 * (tests/support/hung-endpoint.ts); --request-timeout 0.2 keeps the four attempts near a second.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CliIo, EXIT } from '#shared/cli/io.ts';
import { main } from '#shared/cli/main.ts';
import { closedPort, hungEndpoint } from '../support/hung-endpoint.ts';
import { TEST_CREDENTIALS } from '../support/moto.ts';

const hung = hungEndpoint();
const POLICY = resolve('events/history/policy.yaml');

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'governor-history-endpoint-'));
  vi.stubEnv('AWS_ACCESS_KEY_ID', TEST_CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', TEST_CREDENTIALS.secretAccessKey);
  vi.stubEnv('AWS_SESSION_TOKEN', '');
  vi.stubEnv('AWS_PROFILE', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(folder, { recursive: true, force: true });
});

async function history(endpoint: string, ...extra: string[]) {
  vi.stubEnv('AWS_ENDPOINT_URL', endpoint);
  const err: string[] = [];
  const out: string[] = [];
  const io: CliIo = {
    cwd: folder,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    stderrIsTTY: false,
  };
  const argv = ['--target', 'chat-llm', '--policy', POLICY, '--days', '1', '--out', 'history.csv', ...extra];
  const code = await main(['history', ...argv], io);
  return { code, out, err };
}

describe('governor history against an endpoint that does not answer in time', () => {
  it('a stalled endpoint answered too slowly: it names the endpoint, the limit, the attempts and the flag; exit 1, nothing written', async () => {
    const t0 = performance.now();
    const { code, out, err } = await history(hung.url(), '--request-timeout', '0.2');
    expect({ code, out }).toEqual({ code: EXIT.failure, out: [] });
    expect(err).toEqual([
      `governor history: AWS_ENDPOINT_URL ${hung.url()} answered too slowly: no GetMetricData answer within 0.2 s on any of 4 attempts: raise --request-timeout (now 0.2 s), or read a shorter window (--days, --end)`,
    ]);
    expect(err[0]).not.toMatch(/cannot reach/);
    expect(existsSync(join(folder, 'history.csv'))).toBe(false);
    // Four attempts of 0.2 s and the standard mode's backoff: the flag, not the 60 s default, bounds it.
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  it('a refused connection cannot be reached: exit 1, as governor invoke exits for the same endpoint', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const { code, err } = await history(endpoint);
    expect(code).toBe(EXIT.failure);
    expect(err).toEqual([
      `governor history: cannot reach AWS_ENDPOINT_URL ${endpoint} (ECONNREFUSED): check that it is up, or unset it to reach AWS`,
    ]);
  });
});
