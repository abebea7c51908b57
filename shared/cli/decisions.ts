/**
 * `governor decisions --target ID [--since 6h] [--follow [--interval S]] [--json] [--stack NAME]
 * [--region R]`: one target's decision timeline from the state table, oldest first. --follow
 * polls every --interval seconds for records after the last one shown, until Ctrl-C. Read-only.
 *
 * The clock and the wait between polls are injected (decisionsWith), so tests follow a bounded
 * number of polls without waiting.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decisionRecords } from '../aws/decision-records.ts';
import { sinceFrom, timelineLines, timelineRow } from '../live/decisions.ts';
import { type CliIo, type Command, EXIT, UsageError } from './io.ts';
import { awsCall, findStack, LIVE_OPTIONS, liveConfig, liveTarget } from './live.ts';
import { numberOption, parseOptions } from './options.ts';

const OPTIONS = {
  ...LIVE_OPTIONS,
  target: { type: 'string' },
  since: { type: 'string', default: '6h' },
  follow: { type: 'boolean', default: false },
  interval: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

export interface FollowDeps {
  now: () => number;
  /** Waits `ms` between polls; resolves false once the operator stopped (Ctrl-C). */
  wait: (ms: number) => Promise<boolean>;
}

/** Waits with a timer; Ctrl-C ends the wait (false) and the command, with exit 0. */
function interruptibleWait(ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      process.off('SIGINT', stop);
      resolve(true);
    }, ms);
    process.once('SIGINT', stop);
  });
}

export function decisionsWith(deps: FollowDeps): Command {
  return async (args: string[], io: CliIo) => {
    const { values, positionals } = parseOptions({ args, allowPositionals: true, options: OPTIONS });
    if (positionals.length > 0)
      throw new UsageError(
        `unexpected argument ${JSON.stringify(positionals[0])}; run governor decisions --help`,
      );
    if (!values.target)
      throw new UsageError('--target ID is required: the id of a target in the deployed policy');
    const since = sinceFrom(values.since, deps.now());
    if ('problem' in since) throw new UsageError(since.problem);
    const intervalS = numberOption('interval', values.interval, 30, 5, 3600);
    if (values.interval !== undefined && !values.follow)
      throw new UsageError('--interval is for --follow: add --follow');
    const target = liveTarget(values);
    const stack = await findStack(target);
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient(liveConfig(target)));
    let after = `DECISION#${new Date(since.at).toISOString()}`;
    const show = async () => {
      const items = await awsCall(target, 'dynamodb:Query', () =>
        decisionRecords(doc, stack.tableName, values.target!, after),
      );
      for (const item of items) {
        const row = timelineRow(item);
        if (values.json) io.stdout(JSON.stringify(row));
        else for (const line of timelineLines(row)) io.stdout(line);
        after = row.sk;
      }
      return items.length;
    };
    const shown = await show();
    if (shown === 0 && !values.follow)
      io.stderr(
        `no decision of ${values.target} since ${new Date(since.at).toISOString()} in ${stack.tableName} (check --target, or widen --since)`,
      );
    if (values.follow) while (await deps.wait(intervalS * 1000)) await show();
    return EXIT.ok;
  };
}

export const decisionsCommand = decisionsWith({ now: Date.now, wait: interruptibleWait });
