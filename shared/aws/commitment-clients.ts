/**
 * The commitments function's clients, built as every other function's (shared/aws/clients.ts:
 * bounded, retried, deadline-aware, instrumented): EC2 per region, Savings Plans on its one
 * global endpoint (us-east-1), and the home DynamoDB and SSM. Its own module so that no other
 * bundle takes the EC2 client (about 1.2 MB minified: tests/template/bundle.test.ts).
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { SavingsplansClient } from '@aws-sdk/client-savingsplans';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ClientOptions, clientConfig, documentClient, finisher, perRegion } from './clients.ts';

/** Savings Plans has one endpoint, savingsplans.amazonaws.com, signed for us-east-1. */
export const SAVINGS_PLANS_REGION = 'us-east-1';

export interface CommitmentsClients {
  home: { dynamo: DynamoDBDocumentClient; ssm: SSMClient };
  ec2: (region: string) => EC2Client;
  savingsPlans: SavingsplansClient;
}

export function createCommitmentsClients(options: ClientOptions): CommitmentsClients {
  const config = (region?: string) => clientConfig(options, region);
  const b = finisher(options);
  return {
    home: { dynamo: b(documentClient(config())), ssm: b(new SSMClient(config())) },
    ec2: perRegion((r) => b(new EC2Client(config(r)))),
    savingsPlans: b(new SavingsplansClient(config(SAVINGS_PLANS_REGION))),
  };
}
