/**
 * Global Accelerator traffic dials: the share of traffic each endpoint group (one per region) of
 * a listener takes of what would otherwise go to it, 0-100 %.
 *
 * UpdateEndpointGroup is sent with EndpointGroupArn and TrafficDialPercentage only. Every other
 * field of its request is optional, and EndpointConfigurations in it is the group's whole list of
 * endpoints: sent, it replaces them (which is why AddEndpoints exists); left out, the endpoints
 * and health checks stay as they are. So the dial is all this adapter ever sends.
 *
 * There is no batch call: dials are set one group at a time, raises first and then cuts, so no
 * moment between two calls has less traffic going somewhere than before or after (100/0 to
 * 0/100 goes through 100/100, never 0/0). A failure part way leaves more dialed up, not less.
 * Groups already at their dial are not written. Refused before any call: dials that are all 0
 * and endpoint groups of different listeners (dials share out one listener's traffic).
 *
 * Global Accelerator's API is served from us-west-2 only: its client uses us-west-2 whatever the
 * stack's region. The reads are in ./routing-accelerator-read.ts (the failover health evaluation
 * imports that module alone).
 */
import { type GlobalAcceleratorClient, UpdateEndpointGroupCommand } from '@aws-sdk/client-global-accelerator';
import {
  type Dials,
  GROUP_ARN,
  GROUP_EXAMPLE,
  globalAcceleratorDialReads,
  listenerOf,
  readDials,
  dialSite as site,
} from './routing-accelerator-read.ts';
import {
  calling,
  RoutingInputError,
  RoutingRefusedError,
  requireEntries,
  requireMatch,
  requireNumber,
} from './routing-common.ts';

export {
  type Dials,
  GLOBAL_ACCELERATOR_REGION,
  globalAcceleratorClient,
} from './routing-accelerator-read.ts';

export interface DialChange {
  /** The endpoint groups written, in the order they were (raises first). */
  changed: string[];
  /** Every named group's dial read back afterwards. */
  dials: Dials;
}

export interface TrafficDialsPort {
  /** Sets the dials of endpoint groups of one listener (raises first, then cuts) and reads them back. */
  setDials(dials: Readonly<Dials>): Promise<DialChange>;
  /** Each endpoint group's dial, by ARN. */
  dials(arns: readonly string[]): Promise<Dials>;
}

/** The dials checked: endpoint group ARNs of one listener, 0-100, not all 0. Pure. */
export function checkedDials(dials: Readonly<Dials>): [string, number][] {
  const entries = requireEntries(dials, 'dials').map(([arn, pct]): [string, number] => [
    requireMatch(arn, 'dials: an endpoint group ARN', GROUP_ARN, GROUP_EXAMPLE),
    requireNumber(pct, `dials["${arn}"]`, 0, 100, false),
  ]);
  const listeners = [...new Set(entries.map(([arn]) => listenerOf(arn)))];
  if (listeners.length > 1) {
    throw new RoutingInputError(
      `dials name endpoint groups of ${listeners.length} listeners (${listeners.join(', ')}): set one listener's at a time`,
    );
  }
  if (entries.every(([, pct]) => pct === 0)) {
    throw new RoutingRefusedError(
      `refusing to dial every endpoint group of listener ${listeners[0]} to 0 % (${entries.map(([a]) => a).join(', ')}): traffic must go somewhere; leave at least one above 0`,
    );
  }
  return entries;
}

/** The writes, raises first then cuts, each in the given order; unchanged dials left out. Pure. */
export function dialOrder(current: Readonly<Dials>, wanted: readonly [string, number][]): [string, number][] {
  const raises = wanted.filter(([arn, pct]) => pct > current[arn]!);
  const cuts = wanted.filter(([arn, pct]) => pct < current[arn]!);
  return [...raises, ...cuts];
}

export function globalAcceleratorDials(client: GlobalAcceleratorClient): TrafficDialsPort {
  const read = (arns: readonly string[]) => readDials(client, arns);
  return {
    dials: globalAcceleratorDialReads(client).dials,
    async setDials(dials) {
      const wanted = checkedDials(dials);
      const arns = wanted.map(([arn]) => arn);
      const writes = dialOrder(await read(arns), wanted);
      for (const [EndpointGroupArn, TrafficDialPercentage] of writes) {
        await calling(site('UpdateEndpointGroup', EndpointGroupArn), () =>
          client.send(new UpdateEndpointGroupCommand({ EndpointGroupArn, TrafficDialPercentage })),
        );
      }
      return { changed: writes.map(([arn]) => arn), dials: await read(arns) };
    },
  };
}
