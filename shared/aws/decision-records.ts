/**
 * The decision records of one target from the state table (`pk=TARGET#<id>`,
 * `sk=DECISION#<ISO time>#<decisionId>`, shared/apply/records.ts), oldest first: one Query,
 * following LastEvaluatedKey. Read-only; used by `governor decisions` and `governor status`.
 */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { targetPk } from '../state/item.ts';

/** A guard against a table that keeps answering with a LastEvaluatedKey: 1,000 pages. */
const MAX_PAGES = 1_000;

/**
 * Records with a sort key after `afterSk` (exclusive) up to the end of DECISION#, oldest first;
 * `limit` and `newestFirst` read the last ones (status: the last decision).
 */
export async function decisionRecords(
  doc: DynamoDBDocumentClient,
  TableName: string,
  targetId: string,
  afterSk: string,
  options: { limit?: number; newestFirst?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await doc.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': targetPk(targetId), ':from': afterSk, ':to': 'DECISION#~' },
        ScanIndexForward: !options.newestFirst,
        ...(options.limit ? { Limit: options.limit } : {}),
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      }),
    );
    for (const item of out.Items ?? []) if (item.sk !== afterSk) items.push(item);
    ExclusiveStartKey = out.LastEvaluatedKey;
    if (!ExclusiveStartKey || (options.limit && items.length >= options.limit)) return items;
  }
  throw new Error(`Query of ${targetId}'s decisions still had a LastEvaluatedKey after ${MAX_PAGES} pages`);
}
