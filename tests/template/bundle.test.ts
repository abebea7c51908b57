/**
 * Every esbuild function's bundle (each AWS::Serverless::Function with BuildMethod esbuild), built exactly as `sam build` does from template.yaml's BuildProperties:
 * each under the 1 MB budget, importable in a fresh Node with the network shut (no module may
 * connect, resolve or fetch at import), exporting the handler Lambda calls; the forecast bundle
 * carries no client it never uses. Sizes are deterministic for the locked dependencies; import
 * times are printed by `npm run bench` (bench/bundle.bench.ts), never asserted here.
 */
import { readFileSync } from 'node:fs';
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
import { type Loose, template } from './load.ts';

/**
 * Functions allowed past the 1 MB budget, each with its own ceiling and why (issue 22, item 2).
 * CommitmentsFunction: 1.34 MB, of which @aws-sdk/client-ec2 is 549 KB: the EC2 client's
 * serializers for every EC2 operation are one module esbuild cannot tree-shake down to the two
 * Describe calls used. The function runs once an hour, so the larger cold start is paid at most
 * 24 times a day, off every scaling path; no other bundle carries the client (the test below), and
 * the 1 MB budget stays for every function that decides or acts. Reading EC2 with a hand-signed
 * query request instead would be a second, untested EC2 client.
 */
const OWN_BUDGET: Readonly<Record<string, number>> = { CommitmentsFunction: 1_400_000 };

const builds = functionBuilds(template, process.cwd());
const bundles = new Map<string, Bundle>();
/** The template's esbuild functions, read from the template itself, not listed here. */
const esbuildFunctions = Object.entries(template.Resources as Loose)
  .filter(([, r]) => r.Type === 'AWS::Serverless::Function' && r.Metadata?.BuildMethod === 'esbuild')
  .map(([id]) => id);

beforeAll(async () => {
  for (const b of builds) bundles.set(b.id, await bundle(b));
}, 60_000);

describe('the function bundles', () => {
  it('are every esbuild function of the template, each from its one entry point', () => {
    expect(builds.map((b) => b.id)).toEqual(esbuildFunctions);
    expect(builds.map((b) => [b.id, b.entry, b.outFile])).toEqual(
      expect.arrayContaining([
        ['EvaluateFunction', 'functions/evaluate/handler.ts', 'handler.mjs'],
        ['ForecastFunction', 'functions/forecast/handler.ts', 'handler.mjs'],
        ['FailoverFunction', 'functions/failover/handler.ts', 'handler.mjs'],
        ['FailoverActFunction', 'functions/failover/act-handler.ts', 'act-handler.mjs'],
      ]),
    );
    for (const b of builds)
      expect(b.options).toMatchObject({ format: 'esm', minify: true, target: 'es2024' });
  });

  it.each(esbuildFunctions)('%s is under 1 MB (or its own budget, argued below)', (id) => {
    const b = bundles.get(id) as Bundle;
    const top = b.largest
      .slice(0, 5)
      .map((x) => `${x.name} ${Math.round(x.bytes / 1024)} KB`)
      .join(', ');
    expect(b.bytes, `${id}: ${b.bytes} bytes; largest: ${top}`).toBeLessThan(
      OWN_BUDGET[id] ?? BUNDLE_BUDGET_BYTES,
    );
  });

  it('only the commitments function carries the EC2 and Savings Plans clients', () => {
    for (const [id, b] of bundles) {
      const names = b.largest.map((x) => x.name);
      const carries = names.includes('@aws-sdk/client-ec2') || names.includes('@aws-sdk/client-savingsplans');
      expect(carries, id).toBe(id === 'CommitmentsFunction');
    }
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

  it('the failover health evaluation carries the routing clients to read the routing back (issue 18), but only the act function moves traffic', () => {
    const names = (id: string) => (bundles.get(id) as Bundle).largest.map((x) => x.name);
    const routing = [
      '@aws-sdk/client-route-53',
      '@aws-sdk/client-route53-recovery-cluster',
      '@aws-sdk/client-global-accelerator',
    ];
    expect(names('FailoverFunction')).toEqual(expect.arrayContaining(routing));
    expect(names('FailoverActFunction')).toEqual(expect.arrayContaining(routing));
    // The reads alone: no routing write reaches the evaluation's code (the grant check holds its role to them).
    const code = (bundles.get('FailoverFunction') as Bundle).code;
    for (const write of [
      'ChangeResourceRecordSetsCommand',
      'UpdateRoutingControlStatesCommand',
      'UpdateEndpointGroupCommand',
    ])
      expect(code).not.toContain(write);
  });

  it.each(builds.map((b) => ({ id: b.id, entry: b.entry })))(
    "$id ($entry) takes Lambda's credentials from the environment: the other providers are External, left out of the bundle",
    ({ entry }) => {
      // Directly, or through lambdaRuntime(), whose client options are Lambda's own credentials.
      expect(readFileSync(entry, 'utf8')).toMatch(/credentials: fromEnv\(\)|lambdaRuntime\(/);
      expect(readFileSync('shared/aws/lambda-runtime.ts', 'utf8')).toMatch(/credentials: fromEnv\(\)/);
    },
  );

  it.each(esbuildFunctions)(
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
