/**
 * The mix function's decision records in the state table: pk MIX#<targetId>, sk
 * DECISION#<ISO time>#<decisionId>, TTL expiresAt (epoch seconds), beside the target's PLAN and
 * SPOT items. One PutItem per record; the record itself is built by functions/mix/record.ts.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';

export interface MixRecordsPort {
  put(item: Record<string, unknown>): Promise<void>;
}

export function dynamoMixRecords(client: DynamoDBDocumentClient, tableName: string): MixRecordsPort {
  return {
    async put(item) {
      await client.send(new PutCommand({ TableName: tableName, Item: item }));
    },
  };
}
