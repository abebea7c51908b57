/**
 * vitest setupFiles: every SDK call a test file makes or records is checked against the service's
 * own API model (tests/support/aws-model.ts), and a test whose calls break the model fails, naming
 * the call, the member and the rule. Nothing is printed when all conform.
 *
 * Two sources of calls, so the whole suite is covered without touching a test:
 * - aws-sdk-client-mock: mockClient is wrapped (vi.mock here applies to every test file) to keep
 *   each mock; after each test, and before a mock is reset or restored, the calls it recorded
 *   since the last look are checked.
 * - Real clients (moto, dynalite, the hung endpoint): Client.prototype.send of @smithy/core, which
 *   every SDK v3 client inherits, checks the command before sending it. It is patched once the SDK
 *   is loaded (checked before all tests and before each), so files that never load it pay nothing.
 *
 * GOVERNOR_MODEL_CHECK_COUNTS=FILE appends one JSON line per test file ({ file, checked }), for
 * counting the calls checked over a run.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject, vi } from 'vitest';
import {
  type CallOf,
  type CheckStats,
  callOf,
  checkCall,
  formatViolation,
  Models,
  type Violation,
} from './aws-model.ts';

const dataDir = inject('botocoreData');
const models = dataDir ? new Models(dataDir) : null;
const stats: CheckStats = { unreadablePatterns: new Set() };
let checked = 0;
const pending: Violation[] = [];

function check(command: unknown, where: string) {
  if (models === null) return;
  const call: CallOf | null = callOf(command);
  if (call === null) {
    pending.push({ call: where, path: '', problem: 'not an SDK v3 command with an operation schema' });
    return;
  }
  const violations = checkCall(models, call, stats);
  checked++;
  if (violations === null)
    pending.push({
      call: `${call.namespace}.${call.operation}`,
      path: '',
      problem: 'no botocore model is mapped for this service (add it to SERVICE_FOLDERS)',
    });
  else pending.push(...violations);
}

function flush(when: string) {
  if (pending.length === 0) return;
  const lines = pending.splice(0).map(formatViolation);
  throw new Error(
    `AWS model check (${when}): ${lines.length} call input(s) break the service's model:\n  ${lines.join('\n  ')}`,
  );
}

// ---- aws-sdk-client-mock

interface Stub {
  calls(): { args: unknown[] }[];
  reset(): unknown;
  resetHistory(): unknown;
  restore(): unknown;
}
const stubs: Stub[] = [];
const seen = new WeakMap<Stub, number>();

function drain(stub: Stub) {
  const calls = stub.calls();
  for (let i = seen.get(stub) ?? 0; i < calls.length; i++)
    check(calls[i]!.args[0], 'aws-sdk-client-mock call');
  seen.set(stub, calls.length);
}

/** Checks what the stub recorded before `method` forgets it. */
function drainBefore(stub: Stub, method: 'reset' | 'resetHistory' | 'restore') {
  const original = stub[method].bind(stub);
  stub[method] = () => {
    drain(stub);
    const result = original();
    seen.set(stub, 0);
    return result;
  };
}

vi.mock('aws-sdk-client-mock', async (importOriginal) => {
  const original = await importOriginal<typeof import('aws-sdk-client-mock')>();
  const mockClient: typeof original.mockClient = (...args) => {
    const stub = original.mockClient(...args);
    if (models !== null) {
      const s = stub as unknown as Stub;
      for (const m of ['reset', 'resetHistory', 'restore'] as const) drainBefore(s, m);
      stubs.push(s);
    }
    return stub;
  };
  return { ...original, mockClient };
});

// ---- real clients

const require = createRequire(import.meta.url);
const CLIENT_MODULE = require.resolve('@smithy/core/client');
/** The patched send calls whichever test file's check is current (a worker may run several files). */
const HOOK = Symbol.for('governor.awsModelCheck');
type Hooked = { [HOOK]?: (command: unknown) => void };

function patchSendOnceLoaded() {
  if (models === null || !require.cache[CLIENT_MODULE]) return;
  (globalThis as Hooked)[HOOK] = (command) => check(command, 'SDK call');
  const { Client } = require(CLIENT_MODULE) as {
    Client: { prototype: { send: (...a: unknown[]) => unknown } };
  };
  const proto = Client.prototype as { send: (...a: unknown[]) => unknown } & Hooked;
  if (proto[HOOK]) return;
  const send = proto.send;
  proto.send = function (this: unknown, command: unknown, ...rest: unknown[]) {
    (globalThis as Hooked)[HOOK]?.(command);
    return send.call(this, command, ...rest);
  };
  proto[HOOK] = () => {};
}

beforeAll(patchSendOnceLoaded);
beforeEach(patchSendOnceLoaded);
afterEach(() => {
  for (const stub of stubs) drain(stub);
  flush(`in "${expect.getState().currentTestName}"`);
});
afterAll(() => {
  for (const stub of stubs) drain(stub);
  const file = process.env.GOVERNOR_MODEL_CHECK_COUNTS;
  const testPath = expect.getState().testPath ?? '';
  if (file && models !== null)
    appendFileSync(
      file,
      `${JSON.stringify({ file: testPath, checked, unreadable: [...stats.unreadablePatterns] })}\n`,
    );
  flush('outside a test: beforeAll, afterAll or module level');
});
