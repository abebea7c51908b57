/**
 * The two Lambda bundles, built exactly as `sam build` does from template.yaml's BuildProperties:
 * each under the 1 MB budget, importable in a fresh Node with the network shut (no module may
 * connect, resolve or fetch at import), exporting the handler Lambda calls; the forecast bundle
 * carries no client it never uses. Sizes are deterministic for the locked dependencies; import
 * times are printed by `npm run bench` (bench/bundle.bench.ts), never asserted here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_BUDGET_BYTES,
  type Bundle,
  bundle,
  COLD_IMPORT_CHILD,
  coldImport,
  esbuildOptions,
  functionBuilds,
  functionEnvironment,
  ownerOf,
} from '#shared/deploy/bundle.ts';
import { template } from './load.ts';

const builds = functionBuilds(template, process.cwd());
const bundles = new Map<string, Bundle>();

beforeAll(async () => {
  for (const b of builds) bundles.set(b.id, await bundle(b));
}, 60_000);

describe('the function bundles', () => {
  it('are the two esbuild functions of the template, each from its one entry point', () => {
    expect(builds.map((b) => [b.id, b.entry, b.outFile])).toEqual([
      ['EvaluateFunction', 'functions/evaluate/handler.ts', 'handler.mjs'],
      ['ForecastFunction', 'functions/forecast/handler.ts', 'handler.mjs'],
    ]);
    for (const b of builds)
      expect(b.options).toMatchObject({ format: 'esm', minify: true, target: 'es2024' });
  });

  it.each(['EvaluateFunction', 'ForecastFunction'])('%s is under 1 MB', (id) => {
    const b = bundles.get(id) as Bundle;
    const top = b.largest
      .slice(0, 5)
      .map((x) => `${x.name} ${Math.round(x.bytes / 1024)} KB`)
      .join(', ');
    expect(b.bytes, `${id}: ${b.bytes} bytes; largest: ${top}`).toBeLessThan(BUNDLE_BUDGET_BYTES);
  });

  it("takes zod's schemas without its 40 locales (import * as z: 'import { z }' pulled in 258 KB of messages)", () => {
    for (const b of bundles.values()) {
      const zod = b.largest.find((x) => x.name === 'zod')?.bytes ?? 0;
      expect(zod, b.id).toBeLessThan(150_000);
      expect(b.code).not.toContain('Nieprawidłowe dane wejściowe'); // zod's Polish locale
    }
  });

  it('the forecast bundle has no SageMaker and no Step Functions client: it never calls either', () => {
    const names = (id: string) => (bundles.get(id) as Bundle).largest.map((x) => x.name);
    expect(names('ForecastFunction')).not.toContain('@aws-sdk/client-sagemaker');
    expect(names('ForecastFunction')).not.toContain('@aws-sdk/client-sfn');
    expect(names('EvaluateFunction')).toEqual(
      expect.arrayContaining(['@aws-sdk/client-sagemaker', '@aws-sdk/client-sfn']),
    );
  });

  it.each(['EvaluateFunction', 'ForecastFunction'])(
    '%s imports with the network shut and exports its handler',
    async (id) => {
      const b = bundles.get(id) as Bundle;
      const result = await coldImport(b, functionEnvironment(template, id), 1);
      expect(result.handler).toBe('function');
    },
    30_000,
  );

  it('a bundle that reaches the network while it is imported fails the import, naming the call', async () => {
    const b = bundles.get('EvaluateFunction') as Bundle;
    const connecting = {
      ...b,
      code: `import net from 'node:net'; net.connect(443, 'example.com'); export const handler = () => {};`,
    };
    await expect(coldImport(connecting, {}, 1)).rejects.toThrow(
      /EvaluateFunction: importing its bundle failed: .*network use while importing the bundle: net\.connect/s,
    );
    expect(COLD_IMPORT_CHILD).toContain('dns.lookup');
  });
});

describe('reading the template', () => {
  it("the environment is the template's, tracing off by default, stand-ins for references", () => {
    const env = functionEnvironment(template, 'EvaluateFunction');
    expect(env).toMatchObject({
      GOVERNOR_MODE: 'shadow',
      STATE_TABLE_NAME: 'stand-in-state-table-name',
      MAX_EVENT_AGE_SECONDS: '300',
      POWERTOOLS_TRACE_ENABLED: 'false',
      AWS_REGION: 'us-east-1',
    });
    expect(env).not.toHaveProperty('NODE_OPTIONS');
  });

  it('a BuildProperties entry it does not map is an error naming it', () => {
    expect(() => esbuildOptions('F', { EntryPoints: ['a.ts'], Splitting: true }, '.')).toThrow(
      'F: BuildProperties Splitting not understood by shared/deploy/bundle.ts',
    );
    expect(() => esbuildOptions('F', { EntryPoints: [] }, '.')).toThrow(
      'F: BuildProperties.EntryPoints must name one entry point, not 0',
    );
  });

  it.each([
    ['/x/node_modules/@aws-sdk/client-ssm/dist-es/index.js', '@aws-sdk/client-ssm'],
    ['node_modules/zod/v4/core/core.js', 'zod'],
    ['shared/control/routing.ts', 'shared/control'],
  ])('%s belongs to %s', (input, owner) => {
    expect(ownerOf(input)).toBe(owner);
  });
});
