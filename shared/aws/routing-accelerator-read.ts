/**
 * Global Accelerator traffic dials, read only: each endpoint group's TrafficDialPercentage
 * (DescribeEndpointGroup). The failover health evaluation reads them every evaluation (issue 18:
 * reconcile, don't remember); ./routing-accelerator.ts reads them before and after it writes.
 *
 * Global Accelerator's API is served from us-west-2 only: its client uses us-west-2 whatever the
 * stack's region.
 */
import { DescribeEndpointGroupCommand, GlobalAcceleratorClient } from '@aws-sdk/client-global-accelerator';
import { MalformedResponseError } from './capacity.ts';
import { type ClientOptions, clientConfig } from './clients.ts';
import { type CallSite, calling, finishClient, RoutingInputError, requireMatch } from './routing-common.ts';

/** The only region Global Accelerator's API answers in. */
export const GLOBAL_ACCELERATOR_REGION = 'us-west-2';

/** The Global Accelerator client, in us-west-2, built like clients.ts builds every client. */
export const globalAcceleratorClient = (options: ClientOptions): GlobalAcceleratorClient =>
  finishClient(options, new GlobalAcceleratorClient(clientConfig(options, GLOBAL_ACCELERATOR_REGION)));

/** Dials in percent (0-100, fractions allowed) by endpoint group ARN. */
export type Dials = Record<string, number>;

export const GROUP_ARN =
  /^(arn:aws[a-z-]*:globalaccelerator::\d{12}:accelerator\/[\w-]+\/listener\/[\w-]+)\/endpoint-group\/[\w-]+$/;
export const GROUP_EXAMPLE =
  'arn:aws:globalaccelerator::123456789012:accelerator/1234abcd-abcd/listener/0123vxyz/endpoint-group/098765zyxwvu';

export const listenerOf = (arn: string) => GROUP_ARN.exec(arn)![1]!;

export const dialSite = (action: string, arn: string): CallSite => ({
  action: `globalaccelerator:${action}`,
  resource: arn,
  what: `endpoint group ${arn}`,
  notFoundFix: 'check the endpoint group ARN (aws globalaccelerator list-endpoint-groups --region us-west-2)',
});

export async function readDials(client: GlobalAcceleratorClient, arns: readonly string[]): Promise<Dials> {
  const found: Dials = {};
  for (const EndpointGroupArn of arns) {
    const out = await calling(dialSite('DescribeEndpointGroup', EndpointGroupArn), () =>
      client.send(new DescribeEndpointGroupCommand({ EndpointGroupArn })),
    );
    const pct = out.EndpointGroup?.TrafficDialPercentage;
    if (typeof pct !== 'number' || !Number.isFinite(pct) || pct < 0 || pct > 100) {
      throw new MalformedResponseError(
        `DescribeEndpointGroup of ${EndpointGroupArn}: TrafficDialPercentage is ${pct === undefined ? 'missing' : JSON.stringify(pct)}`,
      );
    }
    found[EndpointGroupArn] = pct;
  }
  return found;
}

export interface DialReadsPort {
  /** Each endpoint group's dial, by ARN. */
  dials(arns: readonly string[]): Promise<Dials>;
}

export const globalAcceleratorDialReads = (client: GlobalAcceleratorClient): DialReadsPort => ({
  async dials(arns) {
    if (!Array.isArray(arns) || arns.length === 0)
      throw new RoutingInputError('arns is empty: name at least one endpoint group');
    for (const [i, a] of arns.entries()) requireMatch(a, `arns[${i}]`, GROUP_ARN, GROUP_EXAMPLE);
    return readDials(client, arns);
  },
});
