/**
 * The routing adapters' clients are bounded like every other client (clients.ts, deadline.ts):
 * each attempt times out, and a call made inside withDeadline stops at the deadline. The hung
 * endpoint is a loopback server that accepts connections and never answers, reached through the
 * real SDK stack (no mocks); the failure comes out as the adapter's one-line error.
 */
import { describe, expect, it } from 'vitest';
import { withDeadline } from '#shared/aws/deadline.ts';
import { globalAcceleratorClient, globalAcceleratorDials } from '#shared/aws/routing-accelerator.ts';
import { arcClusterClients, arcRoutingControls } from '#shared/aws/routing-arc.ts';
import { route53Client, route53WeightedRecords } from '#shared/aws/routing-route53.ts';
import { hungEndpoint } from '../support/hung-endpoint.ts';

const hung = hungEndpoint(); // accepts, reads, never answers

const options = () => ({
  region: 'eu-west-1',
  endpoint: hung.url(),
  credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  maxAttempts: 2,
  timeouts: { connectionTimeout: 200, requestTimeout: 150 },
});
const CONTROL = 'arn:aws:route53-recovery-control::123456789012:controlpanel/cp1/routingcontrol/east';
const GROUP =
  'arn:aws:globalaccelerator::123456789012:accelerator/abcd/listener/0123vxyz/endpoint-group/east0001';

const calls = () => ({
  route53: () =>
    route53WeightedRecords(route53Client(options())).weights({
      hostedZoneId: 'Z0123456789ABC',
      name: 'api.example.com',
      type: 'A',
    }),
  arc: () =>
    arcRoutingControls(
      arcClusterClients(options()),
      [
        { url: hung.url(), region: 'us-east-1' },
        { url: hung.url(), region: 'us-west-2' },
      ],
      // The loopback server stands in for a cluster endpoint, which must otherwise be AWS's own.
      { random: () => 0, acceptEndpoint: (url) => url.hostname === '127.0.0.1' },
    ).states([CONTROL]), // start at the first endpoint: a fixed order to assert
  accelerator: () => globalAcceleratorDials(globalAcceleratorClient(options())).dials([GROUP]),
});

describe('the routing clients against an endpoint that never answers', () => {
  it.each([
    { adapter: 'route53', message: /route53:ListResourceRecordSets on .* failed \(TimeoutError/ },
    {
      adapter: 'arc',
      message: /failed on all 2 cluster endpoints \(us-east-1: TimeoutError; us-west-2: TimeoutError\)/,
    },
    {
      adapter: 'accelerator',
      message: /globalaccelerator:DescribeEndpointGroup on .* failed \(TimeoutError/,
    },
  ] as const)('the $adapter adapter gives up after its attempts time out', async ({ adapter, message }) => {
    const t0 = performance.now();
    await expect(calls()[adapter]()).rejects.toThrow(message);
    expect(performance.now() - t0).toBeLessThan(3_000);
  });

  it.each(['route53', 'arc', 'accelerator'] as const)(
    'the %s adapter stops at the invocation deadline',
    async (adapter) => {
      const call: () => Promise<unknown> = calls()[adapter];
      const t0 = performance.now();
      await expect(withDeadline(Date.now() + 100, call)).rejects.toThrow(
        /did not finish before the invocation's deadline/,
      );
      expect(performance.now() - t0).toBeLessThan(1_000);
    },
  );
});
