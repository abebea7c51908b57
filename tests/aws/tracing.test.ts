/**
 * X-Ray tracing through the Powertools Tracer: off unless POWERTOOLS_TRACE_ENABLED says true
 * (the template's Tracing parameter), and when on, every SDK client the handlers build gets the
 * Tracer's subsegment middleware.
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClients, createForecastClients, regionalDocumentClient } from '#shared/aws/clients.ts';
import { createTracing, tracingEnabled } from '#shared/aws/tracing.ts';

const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const middlewareNames = (client: { middlewareStack: { identify: () => string[] } }) =>
  client.middlewareStack.identify();

describe('tracingEnabled', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['off', false],
    ['1', false],
    ['true', true],
    [' TRUE\n', true],
  ])('POWERTOOLS_TRACE_ENABLED=%j: %s', (value, on) => {
    expect(tracingEnabled({ POWERTOOLS_TRACE_ENABLED: value })).toBe(on);
  });
});

describe('createTracing', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('stays off outside Lambda even when asked (the Tracer needs AWS_EXECUTION_ENV)', () => {
    vi.stubEnv('AWS_EXECUTION_ENV', '');
    expect(createTracing({ POWERTOOLS_TRACE_ENABLED: 'true' }, 'governor').enabled).toBe(false);
  });

  it('off: no instrument for the clients, a Tracer that records nothing', () => {
    const t = createTracing({}, 'governor');
    expect(t.enabled).toBe(false);
    expect(t.instrument).toBeUndefined();
    expect(t.tracer.isTracingEnabled()).toBe(false);
  });

  it('on: the instrument adds a middleware to the client, and createClients applies it to every client', () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
    const t = createTracing({ POWERTOOLS_TRACE_ENABLED: 'true' }, 'governor');
    expect(t.enabled).toBe(true);
    const plain = middlewareNames(new SSMClient({ region: 'us-east-1', credentials }));
    const traced = t.instrument?.(new SSMClient({ region: 'us-east-1', credentials }));
    expect(traced).toBeDefined();
    const added = middlewareNames(traced as SSMClient).filter((n) => !plain.includes(n));
    expect(added.length).toBeGreaterThan(0);

    const seen: object[] = [];
    const instrument = <C extends object>(c: C): C => {
      seen.push(c);
      return c;
    };
    const all = createClients({ region: 'us-east-1', credentials, instrument });
    all.cloudWatch('us-east-1');
    all.sageMaker('eu-west-1');
    all.appAutoScaling('us-east-1');
    all.autoScaling('us-east-1');
    expect(seen.length).toBe(7); // dynamo, ssm, sfn at once; the regional ones on first use
    seen.length = 0;
    const forecast = createForecastClients({ region: 'us-east-1', credentials, instrument });
    forecast.cloudWatch('us-east-1');
    forecast.appAutoScaling('us-east-1');
    forecast.autoScaling('us-east-1');
    expect(seen.length).toBe(5);
    seen.length = 0;
    regionalDocumentClient({ region: 'us-west-2', credentials, instrument }, 'us-east-1');
    expect(seen.length).toBe(1); // the failover function's client for a peer region's table
    expect(forecast).not.toHaveProperty('sageMaker');
    expect(forecast.home).not.toHaveProperty('sfn');
  });
});
