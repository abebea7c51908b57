/**
 * The invocation's deadline, for every AWS call made inside it. The Lambda handler runs the
 * invocation inside withDeadline(at, ...); every client createClients() builds passes an
 * AbortSignal that fires at `at` to each send(), so a call still running then (all its retries
 * included) ends with DeadlineExceeded instead of holding the invocation until Lambda's own
 * timeout kills it mid-write. Outside withDeadline (tests, the CLI) calls have no deadline.
 *
 * AsyncLocalStorage carries the deadline from the handler to the calls without threading it
 * through every adapter; it is per invocation, not module state that outlives one.
 *
 * The evaluator and the forecast function also stop *starting* work when little time is left
 * (budget.ts); the deadline is the last resort for a call that hangs once started.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Deadline {
  at: number;
  signal: AbortSignal;
}

const current = new AsyncLocalStorage<Deadline>();

export class DeadlineExceededError extends Error {
  override name = 'DeadlineExceeded';
}

/** The reason an aborted call carries: smithy turns it into AbortError("DeadlineExceeded: ..."). */
const reasonAt = (at: number) =>
  `the invocation's deadline (${new Date(at).toISOString()}) passed before this call finished; it was abandoned`;

/** Runs fn with every AWS call inside it bounded by `at` (epoch ms). */
export async function withDeadline<T>(at: number, fn: () => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reasonAt(at)), Math.max(0, at - Date.now()));
  try {
    return await current.run({ at, signal: controller.signal }, fn);
  } finally {
    clearTimeout(timer);
  }
}

/** The abort signal of the deadline in force, or undefined outside withDeadline. */
export function deadlineSignal(): AbortSignal | undefined {
  return current.getStore()?.signal;
}

/** Milliseconds left before the deadline in force (Infinity outside withDeadline). */
export function deadlineLeftMs(now = Date.now()): number {
  const d = current.getStore();
  return d ? d.at - now : Number.POSITIVE_INFINITY;
}

export type Sendable = { send: (...args: never[]) => Promise<unknown> };

/**
 * Makes client.send pass the deadline's abort signal with every command (unless the caller gave
 * one). The class's own send is looked up at each call, so aws-sdk-client-mock, which stubs the
 * class prototype, still answers. A call started after the deadline fails at once.
 */
export function boundedByDeadline<C extends Sendable>(client: C): C {
  const proto = Object.getPrototypeOf(client) as { send: (...args: unknown[]) => Promise<unknown> };
  const send = function (this: C, command: unknown, options?: unknown, cb?: unknown) {
    const signal = deadlineSignal();
    if (!signal || typeof options === 'function') return proto.send.call(this, command, options, cb);
    if (signal.aborted) return Promise.reject(new DeadlineExceededError(String(signal.reason)));
    const given = (options ?? {}) as { abortSignal?: AbortSignal };
    return proto.send
      .call(this, command, { ...given, abortSignal: given.abortSignal ?? signal })
      .catch((error: unknown) => {
        // smithy's AbortError says "Request aborted": name the deadline instead.
        if (signal.aborted && (error as Error)?.name === 'AbortError')
          throw new DeadlineExceededError(String(signal.reason));
        throw error;
      });
  };
  Object.defineProperty(client, 'send', { value: send, configurable: true, writable: true });
  return client;
}
