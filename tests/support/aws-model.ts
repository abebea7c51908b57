/**
 * AWS's own API models, and an SDK call's input checked against them (issue 18, item 4): the
 * calls the tests make or record are held to what the service accepts, not to what we remember.
 *
 * The models are botocore's (`botocore/data/<service>/<version>/service-2.json.gz`, in the Python
 * environment beside moto), read and gunzipped at test time, the latest version folder that has one.
 * An SDK v3 command's input members are named as the model's shape members (PascalCase), and its
 * schema names the operation: [9, 'com.amazonaws.cloudwatch', 'GetMetricData', ...].
 *
 * Checked, recursively through structures, lists and maps: required members present, no member
 * the shape does not have, the type, enums, numeric ranges (min/max), string, list and map
 * lengths (min/max), and patterns (matched against the whole value, as the services do).
 * One more source, the model's own words: an integer member whose shape carries no min/max but
 * whose documentation says "between N and M" (Application Auto Scaling's MaxResults, "This value
 * can be between 1 and 10") is held to that range too.
 *
 * Not checked: values inside a DynamoDB AttributeValue sent through the document client (native
 * JS values, which lib-dynamodb marshals itself; the moto and dynalite runs still check the rest
 * of those calls), and patterns the model writes in a regex dialect JavaScript cannot compile
 * (Java's `(?i)`, `\p{Alnum}`): counted in `unreadablePatterns`, never guessed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** The SDK schema's Smithy namespace -> botocore's service folder, for every client the project uses. */
export const SERVICE_FOLDERS: Readonly<Record<string, string>> = {
  'com.amazonaws.applicationautoscaling': 'application-autoscaling',
  'com.amazonaws.autoscaling': 'autoscaling',
  'com.amazonaws.cloudformation': 'cloudformation',
  'com.amazonaws.cloudwatch': 'cloudwatch',
  'com.amazonaws.dynamodb': 'dynamodb',
  'com.amazonaws.ec2': 'ec2',
  'com.amazonaws.globalaccelerator': 'globalaccelerator',
  'com.amazonaws.route53': 'route53',
  'com.amazonaws.route53recoverycluster': 'route53-recovery-cluster',
  'com.amazonaws.sagemaker': 'sagemaker',
  'com.amazonaws.savingsplans': 'savingsplans',
  'com.amazonaws.sfn': 'stepfunctions',
  'com.amazonaws.ssm': 'ssm',
};

interface Member {
  shape: string;
  documentation?: string;
}
export interface Shape {
  type: string;
  required?: string[];
  members?: Record<string, Member>;
  member?: Member;
  key?: Member;
  value?: Member;
  enum?: string[];
  min?: number;
  max?: number;
  pattern?: string;
  exception?: boolean;
}
export interface ServiceModel {
  metadata: { serviceId: string; uid: string };
  operations: Record<string, { input?: { shape: string }; errors?: { shape: string }[] }>;
  shapes: Record<string, Shape>;
}

export interface Violation {
  /** service.Operation, e.g. cloudwatch.GetMetricData */
  call: string;
  /** Where in the input, e.g. MetricDataQueries[0].MetricStat.Period */
  path: string;
  problem: string;
}

/** The service-2.json.gz of a service's latest version folder that has one, or null. */
export function modelFile(dataDir: string, folder: string): string | null {
  const dir = join(dataDir, folder);
  if (!existsSync(dir)) return null;
  const versions = readdirSync(dir)
    .filter((v) => existsSync(join(dir, v, 'service-2.json.gz')))
    .sort();
  const latest = versions.at(-1);
  return latest === undefined ? null : join(dir, latest, 'service-2.json.gz');
}

export function loadModel(file: string): ServiceModel {
  return JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as ServiceModel;
}

/** Models by service folder, each read once per test file, only when a call needs it. */
export class Models {
  private readonly cache = new Map<string, ServiceModel | null>();
  readonly dataDir: string;
  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }
  get(folder: string): ServiceModel | null {
    if (!this.cache.has(folder)) {
      const file = modelFile(this.dataDir, folder);
      this.cache.set(folder, file === null ? null : loadModel(file));
    }
    return this.cache.get(folder)!;
  }
}

/** What an SDK v3 command is: its service folder, operation and input, and whether it is lib-dynamodb's. */
export interface CallOf {
  namespace: string;
  operation: string;
  input: unknown;
  documentClient: boolean;
}

type Schema = readonly unknown[] | undefined;

/** The operation an SDK v3 command (or a lib-dynamodb command wrapping one) calls, or null. */
export function callOf(command: unknown): CallOf | null {
  const c = command as { schema?: Schema; input?: unknown; clientCommand?: { schema?: Schema } };
  const documentClient = c?.clientCommand !== undefined;
  const schema = documentClient ? c.clientCommand!.schema : c?.schema;
  if (!Array.isArray(schema) || schema[0] !== 9) return null;
  return {
    namespace: String(schema[1]),
    operation: String(schema[2]),
    input: c.input ?? {},
    documentClient,
  };
}

export interface CheckStats {
  unreadablePatterns: Set<string>;
}

/**
 * Java's POSIX classes, which some models use (`\p{Print}+`, `[\p{Alnum}\-]+`: the services
 * are Java), as the ranges they stand for; JavaScript reads `\p{...}` as Unicode properties only.
 */
const JAVA_CLASSES: Readonly<Record<string, string>> = {
  Print: '\\x20-\\x7E',
  Graph: '\\x21-\\x7E',
  Alnum: 'A-Za-z0-9',
  Alpha: 'A-Za-z',
  Digit: '0-9',
  Upper: 'A-Z',
  Lower: 'a-z',
  XDigit: '0-9A-Fa-f',
  Space: ' \\t\\n\\x0B\\f\\r',
  Punct: '!-\\/:-@\\[-`{-~',
  ASCII: '\\x00-\\x7F',
};

/** The pattern with Java's POSIX classes spelled as ranges (inside a class or wrapped in one). */
function fromJava(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const java = c === '\\' ? /^\\p\{([A-Za-z]+)\}/.exec(pattern.slice(i)) : null;
    const range = java ? JAVA_CLASSES[java[1]!] : undefined;
    if (java && range !== undefined) {
      out += inClass ? range : `[${range}]`;
      i += java[0].length - 1;
    } else if (c === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
    } else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      out += c;
    }
  }
  return out;
}

/**
 * A model pattern as AWS applies it: to the whole value. The models leave most unanchored
 * (EndpointName's `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}`), and the services refuse "chat_llm" with
 * "Member must satisfy regular expression pattern", so the check anchors each one. A leading
 * `(?i)` is Java's case-insensitive flag. Compiled with the `u` flag when it allows, else without
 * (identity escapes such as `\-` and `\_`, which only that mode refuses); a pattern neither
 * reads is null, never guessed.
 */
const regexCache = new Map<string, RegExp | null>();
function compiled(pattern: string): RegExp | null {
  if (!regexCache.has(pattern)) {
    const caseless = pattern.startsWith('(?i)');
    const source = `^(?:${fromJava(caseless ? pattern.slice(4) : pattern)})$`;
    let re: RegExp | null = null;
    for (const flags of ['u', '']) {
      // Without u, \p{L} would read as the letters "p{L}": only patterns free of \p try that mode.
      if (flags === '' && source.includes('\\p{')) continue;
      try {
        re = new RegExp(source, flags + (caseless ? 'i' : ''));
        break;
      } catch {
        // not this dialect
      }
    }
    regexCache.set(pattern, re);
  }
  return regexCache.get(pattern)!;
}

/** "This value can be between 1 and 10": the range the member's documentation gives, if any. */
function documentedRange(doc: string | undefined): { min: number; max: number } | null {
  const m = doc && /\bbetween (\d+) and (\d+)\b/i.exec(doc.replace(/<[^>]+>/g, ''));
  return m ? { min: Number(m[1]), max: Number(m[2]) } : null;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !ArrayBuffer.isView(v);

interface Walk {
  model: ServiceModel;
  call: string;
  documentClient: boolean;
  out: Violation[];
  stats: CheckStats | undefined;
}

function bounds(w: Walk, path: string, shape: Shape, size: number, what: string) {
  if (shape.min !== undefined && size < shape.min)
    w.out.push({ call: w.call, path, problem: `${what} ${size} is under the model's min ${shape.min}` });
  if (shape.max !== undefined && size > shape.max)
    w.out.push({ call: w.call, path, problem: `${what} ${size} is over the model's max ${shape.max}` });
}

function checkString(w: Walk, path: string, name: string, shape: Shape, value: unknown) {
  if (typeof value !== 'string') {
    w.out.push({ call: w.call, path, problem: `${name} is a string, got ${typeof value}` });
    return;
  }
  if (shape.enum && !shape.enum.includes(value))
    w.out.push({ call: w.call, path, problem: `${JSON.stringify(value)} is not one of ${name}'s values` });
  bounds(w, path, shape, [...value].length, 'length');
  if (shape.pattern !== undefined) {
    const re = compiled(shape.pattern);
    if (re === null) w.stats?.unreadablePatterns.add(`${name}: ${shape.pattern}`);
    else if (!re.test(value))
      w.out.push({
        call: w.call,
        path,
        problem: `${JSON.stringify(value).slice(0, 80)} does not match ${name}'s pattern ${shape.pattern}`,
      });
  }
}

function checkNumber(w: Walk, path: string, name: string, shape: Shape, value: unknown, doc?: string) {
  const integral = shape.type === 'integer' || shape.type === 'long';
  if (typeof value === 'bigint' && shape.type === 'long') return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integral && !Number.isInteger(value))) {
    w.out.push({ call: w.call, path, problem: `${name} is ${shape.type}, got ${String(value)}` });
    return;
  }
  bounds(w, path, shape, value, 'value');
  const said = shape.min === undefined && shape.max === undefined ? documentedRange(doc) : null;
  if (said && (value < said.min || value > said.max))
    w.out.push({
      call: w.call,
      path,
      problem: `value ${value} is outside ${said.min}-${said.max}, the range the model's documentation of this member gives`,
    });
}

function checkStructure(w: Walk, path: string, name: string, shape: Shape, value: unknown) {
  if (!isPlainObject(value)) {
    w.out.push({ call: w.call, path, problem: `${name} is a structure, got ${typeof value}` });
    return;
  }
  const members = shape.members ?? {};
  for (const required of shape.required ?? [])
    if (value[required] === undefined || value[required] === null)
      w.out.push({ call: w.call, path: join2(path, required), problem: `required by ${name}, missing` });
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const member = members[key];
    if (!member) {
      w.out.push({ call: w.call, path: join2(path, key), problem: `${name} has no member ${key}` });
      continue;
    }
    walk(w, join2(path, key), member.shape, v, member.documentation);
  }
}

const join2 = (path: string, key: string) => (path ? `${path}.${key}` : key);

function checkList(w: Walk, path: string, name: string, shape: Shape, value: unknown) {
  if (!Array.isArray(value) && !(value instanceof Set)) {
    w.out.push({ call: w.call, path, problem: `${name} is a list, got ${typeof value}` });
    return;
  }
  const items = [...value];
  bounds(w, path, shape, items.length, 'length');
  for (const [i, item] of items.entries()) walk(w, `${path}[${i}]`, shape.member!.shape, item);
}

function checkMap(w: Walk, path: string, name: string, shape: Shape, value: unknown) {
  if (!isPlainObject(value)) {
    w.out.push({ call: w.call, path, problem: `${name} is a map, got ${typeof value}` });
    return;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  bounds(w, path, shape, entries.length, 'entries');
  for (const [k, v] of entries) {
    walk(w, `${path}{key ${JSON.stringify(k)}}`, shape.key!.shape, k);
    walk(w, `${path}[${JSON.stringify(k)}]`, shape.value!.shape, v);
  }
}

/** Scalars other than strings and numbers: the JS types the SDK serializes for them. */
function checkScalar(w: Walk, path: string, name: string, shape: Shape, value: unknown) {
  const ok =
    shape.type === 'boolean'
      ? typeof value === 'boolean'
      : shape.type === 'timestamp'
        ? (value instanceof Date && !Number.isNaN(value.getTime())) ||
          typeof value === 'number' ||
          typeof value === 'string'
        : shape.type === 'blob'
          ? typeof value === 'string' || ArrayBuffer.isView(value)
          : true; // document: anything
  if (!ok) w.out.push({ call: w.call, path, problem: `${name} is a ${shape.type}, got ${String(value)}` });
}

const CHECKS: Record<string, (w: Walk, path: string, name: string, shape: Shape, value: unknown) => void> = {
  structure: checkStructure,
  list: checkList,
  map: checkMap,
  string: checkString,
};

function walk(w: Walk, path: string, name: string, value: unknown, doc?: string): void {
  const shape = w.model.shapes[name];
  if (!shape) {
    w.out.push({ call: w.call, path, problem: `the model has no shape ${name}` });
    return;
  }
  // lib-dynamodb sends native values where the model has AttributeValue; it marshals them itself.
  if (w.documentClient && name === 'AttributeValue') return;
  if (value === null) w.out.push({ call: w.call, path, problem: `${name} may not be null` });
  else if (['integer', 'long', 'float', 'double'].includes(shape.type))
    checkNumber(w, path, name, shape, value, doc);
  else (CHECKS[shape.type] ?? checkScalar)(w, path, name, shape, value);
}

/**
 * The violations of one call's input against its operation's model (empty: it conforms), or
 * null when no model is known for the call's service (the caller reports that).
 */
export function checkCall(models: Models, call: CallOf, stats?: CheckStats): Violation[] | null {
  const folder = SERVICE_FOLDERS[call.namespace];
  const model = folder === undefined ? null : models.get(folder);
  if (model === null) return null;
  const name = `${folder}.${call.operation}`;
  const operation = model.operations[call.operation];
  if (!operation) return [{ call: name, path: '', problem: `the model has no operation ${call.operation}` }];
  const out: Violation[] = [];
  if (operation.input)
    walk(
      { model, call: name, documentClient: call.documentClient, out, stats },
      '',
      operation.input.shape,
      call.input,
    );
  return out;
}

export const formatViolation = (v: Violation) => `${v.call} ${v.path || '(input)'}: ${v.problem}`;
