/**
 * AWS X-Ray tracing through the Powertools Tracer, off unless the stack turns it on: the
 * template's Tracing parameter (Active) sets the functions' X-Ray mode and
 * POWERTOOLS_TRACE_ENABLED=true. When it is on, each invocation is a segment (cold start and
 * service annotated by Powertools) and every SDK call a subsegment; when it is off, nothing is
 * wrapped and nothing is sent.
 *
 * Off is Governor's default (Powertools' own is on) because X-Ray bills per trace and the
 * evaluate function runs every minute: turn it on to chase a slow tick, then off again.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';

/** True only when POWERTOOLS_TRACE_ENABLED says true (any case, spaces trimmed). */
export function tracingEnabled(env: Record<string, string | undefined>): boolean {
  return env.POWERTOOLS_TRACE_ENABLED?.trim().toLowerCase() === 'true';
}

export interface Tracing {
  enabled: boolean;
  tracer: Tracer;
  /** For ClientOptions.instrument: every SDK call a subsegment (only when enabled). */
  instrument: (<C extends object>(client: C) => C) | undefined;
  /** The middy middleware that opens and closes the invocation's segment. */
  middleware: ReturnType<typeof captureLambdaHandler>;
}

export function createTracing(env: Record<string, string | undefined>, serviceName: string): Tracing {
  const tracer = new Tracer({ serviceName, enabled: tracingEnabled(env) });
  // The Tracer also stays off outside Lambda (no AWS_EXECUTION_ENV) and under SAM local.
  const enabled = tracer.isTracingEnabled();
  return {
    enabled,
    tracer,
    instrument: enabled ? <C extends object>(client: C) => tracer.captureAWSv3Client(client) : undefined,
    // The response is the invocation's summary, already logged; errors are kept on the segment.
    middleware: captureLambdaHandler(tracer, { captureResponse: false }),
  };
}
