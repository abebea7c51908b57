/**
 * Which AWS API calls a Lambda function's code can send: the files reachable from its entry
 * point through relative (and `#shared/`, `#functions/`) imports, and in them every
 * `new XxxCommand(` whose class is imported from an AWS SDK v3 package. Each command maps to
 * one IAM action: the package gives the service prefix, the class name the action.
 */

import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { appendAll } from '../arrays/extent.ts';

/** SDK package to IAM service prefix. A package missing here is reported, never guessed. */
export const IAM_PREFIX_BY_PACKAGE: Readonly<Record<string, string>> = {
  '@aws-sdk/client-application-auto-scaling': 'application-autoscaling',
  '@aws-sdk/client-auto-scaling': 'autoscaling',
  '@aws-sdk/client-cloudwatch': 'cloudwatch',
  '@aws-sdk/client-cloudwatch-logs': 'logs',
  '@aws-sdk/client-dynamodb': 'dynamodb',
  '@aws-sdk/lib-dynamodb': 'dynamodb',
  '@aws-sdk/client-ec2': 'ec2',
  '@aws-sdk/client-global-accelerator': 'globalaccelerator',
  '@aws-sdk/client-lambda': 'lambda',
  '@aws-sdk/client-route-53': 'route53',
  '@aws-sdk/client-route53-recovery-cluster': 'route53-recovery-cluster',
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/client-savingsplans': 'savingsplans',
  '@aws-sdk/client-sagemaker': 'sagemaker',
  '@aws-sdk/client-scheduler': 'scheduler',
  '@aws-sdk/client-sfn': 'states',
  '@aws-sdk/client-sns': 'sns',
  '@aws-sdk/client-sqs': 'sqs',
  '@aws-sdk/client-ssm': 'ssm',
};

/** lib-dynamodb's document commands and the DynamoDB action each sends. */
const DOCUMENT_COMMANDS: Readonly<Record<string, string>> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  Query: 'Query',
  Scan: 'Scan',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
  ExecuteStatement: 'PartiQLSelect',
};

export interface SentCommand {
  file: string;
  command: string;
  pkg: string;
  /** `service:Action`, or null when the package is not in IAM_PREFIX_BY_PACKAGE. */
  action: string | null;
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[\w*\s{},]*?\s+from\s+)?['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
const NAMED_IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"](@aws-sdk\/[^'"]+)['"]/g;
const NEW_CLASS = /new\s+(\w+)\s*\(/g;

/** Local module specifiers of one file, resolved to absolute paths. */
function localImports(file: string, text: string, root: string): string[] {
  const specs = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!);
  return specs.flatMap((spec) => {
    if (spec.startsWith('.')) return [resolve(dirname(file), spec)];
    if (spec.startsWith('#shared/')) return [join(root, 'shared', spec.slice('#shared/'.length))];
    if (spec.startsWith('#functions/')) return [join(root, 'functions', spec.slice('#functions/'.length))];
    return [];
  });
}

/** Every source file reachable from entry (absolute paths, entry first). */
export function reachableFiles(
  entry: string,
  root: string,
  read = (f: string) => readFileSync(f, 'utf8'),
): string[] {
  const seen = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file) || !/\.[cm]?[jt]s$/.test(file)) continue;
    seen.add(file);
    appendAll(queue, localImports(file, read(file), root));
  }
  return [...seen];
}

/** The IAM action a command class of an SDK package sends. */
export function actionFor(pkg: string, command: string): string | null {
  const prefix = IAM_PREFIX_BY_PACKAGE[pkg];
  if (!prefix) return null;
  const base = command.replace(/Command$/, '');
  const name = pkg === '@aws-sdk/lib-dynamodb' ? (DOCUMENT_COMMANDS[base] ?? base) : base;
  return `${prefix}:${name}`;
}

/** The commands one file constructs, with the package each class came from (aliases followed). */
export function commandsInSource(file: string, text: string): SentCommand[] {
  const imported = new Map<string, { name: string; pkg: string }>();
  for (const m of text.matchAll(NAMED_IMPORT)) {
    for (const part of m[1]!.split(',')) {
      const [name, local] = part
        .replace(/^\s*type\s+/, '')
        .trim()
        .split(/\s+as\s+/);
      if (name) imported.set((local ?? name).trim(), { name: name.trim(), pkg: m[2]! });
    }
  }
  return [...text.matchAll(NEW_CLASS)].flatMap((m) => {
    const found = imported.get(m[1]!);
    return found?.name.endsWith('Command')
      ? [{ file, command: found.name, pkg: found.pkg, action: actionFor(found.pkg, found.name) }]
      : [];
  });
}

/** Every command the code reachable from entry sends (file paths relative to root). */
export function commandsSentFrom(
  entry: string,
  root: string,
  read = (f: string) => readFileSync(f, 'utf8'),
): SentCommand[] {
  return reachableFiles(entry, root, read).flatMap((file) =>
    commandsInSource(relative(root, file), read(file)),
  );
}
