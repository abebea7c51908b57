/**
 * DynamoDB adapter of the commitments read (shared/commit/stored.ts): one item per region,
 * pk COMMIT#<region>, sk READ, written whole by the commitments function every hour (a later read
 * replaces an earlier one: PutItem, no condition) with a TTL of a week, and read by the mix
 * function. An item that does not parse is an error naming the item, not an empty read.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ExistingCommitments } from '../commit/exists.ts';
import { COMMIT_SK, commitPk, ExistingCommitmentsSchema } from '../commit/stored.ts';
import { MalformedResponseError } from './capacity.ts';

/** A read is kept a week: far beyond the 3 hours after which the check stops trusting it. */
export const COMMIT_TTL_SECONDS = 7 * 86_400;

export interface CommitmentsStorePort {
  write(read: ExistingCommitments): Promise<void>;
  /** The region's latest read, or null when none is stored. */
  read(region: string): Promise<ExistingCommitments | null>;
}

export function commitmentsStore(doc: DynamoDBDocumentClient, table: string): CommitmentsStorePort {
  return {
    async write(read) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            pk: commitPk(read.region),
            sk: COMMIT_SK,
            read,
            expiresAt: Math.floor(read.readAt / 1000) + COMMIT_TTL_SECONDS,
          },
        }),
      );
    },
    async read(region) {
      const r = await doc.send(
        new GetCommand({ TableName: table, Key: { pk: commitPk(region), sk: COMMIT_SK } }),
      );
      if (!r.Item) return null;
      const parsed = ExistingCommitmentsSchema.safeParse(r.Item.read);
      if (!parsed.success)
        throw new MalformedResponseError(
          `${commitPk(region)}/${COMMIT_SK} does not parse (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}): the commitments function rewrites it within the hour`,
        );
      return parsed.data;
    },
  };
}
