/**
 * The Lambda bundles exactly as `sam build` makes them: each AWS::Serverless::Function with
 * `BuildMethod: esbuild` is bundled from its Metadata.BuildProperties (entry point, format,
 * target, minify, main fields, banner, external), through esbuild's own API. `npm run bench`
 * prints their sizes and cold-import times; tests/template/bundle.test.ts holds them under the
 * budget and imports each with the network shut.
 *
 * Dev-time only (esbuild is a devDependency): nothing here is in a bundle.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type BuildOptions, build } from 'esbuild';
import { isObject, type JsonObject } from './cfn-yaml.ts';

/** The size a function bundle must stay under (issue 13: "under 1 MB per function"). */
export const BUNDLE_BUDGET_BYTES = 1_000_000;
/** The cold import a function bundle must stay under, in milliseconds. */
export const COLD_IMPORT_BUDGET_MS = 200;

export interface FunctionBuild {
  /** The function's logical id in the template. */
  id: string;
  /** The esbuild entry point, relative to the project root. */
  entry: string;
  /** The file Lambda loads: the entry's name with OutExtension applied (handler.mjs). */
  outFile: string;
  options: BuildOptions;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [];

/**
 * SAM's esbuild BuildProperties as esbuild options. Only the properties the template uses are
 * mapped; any other one is an error naming it, so a property added to the template cannot be
 * silently left out of what is measured.
 */
export function esbuildOptions(id: string, props: JsonObject, root: string): FunctionBuild {
  const known = new Set([
    'Format',
    'OutExtension',
    'Target',
    'Minify',
    'Sourcemap',
    'MainFields',
    'Banner',
    'EntryPoints',
    'External',
  ]);
  const unknown = Object.keys(props).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new Error(
      `${id}: BuildProperties ${unknown.join(', ')} not understood by shared/deploy/bundle.ts: map it there so the measured bundle stays the deployed one`,
    );
  const entries = strings(props.EntryPoints);
  const [entry] = entries;
  if (entries.length !== 1 || !entry)
    throw new Error(`${id}: BuildProperties.EntryPoints must name one entry point, not ${entries.length}`);
  const outExtension = Object.fromEntries(
    strings(props.OutExtension).map((pair) => pair.split('=') as [string, string]),
  );
  const banner = Object.fromEntries(
    strings(props.Banner).map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  const base = entry.replace(/^.*\//, '').replace(/\.[cm]?[jt]s$/, '');
  return {
    id,
    entry,
    outFile: `${base}${outExtension['.js'] ?? '.js'}`,
    options: {
      entryPoints: [join(root, entry)],
      bundle: true,
      platform: 'node',
      format: props.Format === 'esm' ? 'esm' : 'cjs',
      target: typeof props.Target === 'string' ? props.Target : 'es2020',
      minify: props.Minify === true,
      mainFields: strings(props.MainFields),
      banner,
      external: strings(props.External),
      logLevel: 'silent',
    },
  };
}

/** Every esbuild-built function of a parsed template. */
export function functionBuilds(template: JsonObject, root: string): FunctionBuild[] {
  const resources = isObject(template.Resources) ? template.Resources : {};
  return Object.entries(resources).flatMap(([id, r]) => {
    if (!isObject(r) || r.Type !== 'AWS::Serverless::Function') return [];
    const meta = isObject(r.Metadata) ? r.Metadata : {};
    if (meta.BuildMethod !== 'esbuild' || !isObject(meta.BuildProperties)) return [];
    return [esbuildOptions(id, meta.BuildProperties, root)];
  });
}

export interface Bundle {
  id: string;
  outFile: string;
  code: string;
  bytes: number;
  /** Bytes in the output per npm package (or per project folder), largest first. */
  largest: { name: string; bytes: number }[];
}

/** The package an input belongs to: '@scope/name', 'name', or the project folder 'shared/x'. */
export function ownerOf(input: string): string {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return input.split('/').slice(0, 2).join('/');
  const parts = input.slice(at + 'node_modules/'.length).split('/');
  return (parts[0]?.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** Bundles one function in memory (no source map: Lambda's .map file is not loaded at import). */
export async function bundle(b: FunctionBuild): Promise<Bundle> {
  const result = await build({ ...b.options, write: false, metafile: true, outfile: b.outFile });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`${b.id}: esbuild wrote nothing for ${b.entry}`);
  const byOwner = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      byOwner.set(ownerOf(input), (byOwner.get(ownerOf(input)) ?? 0) + bytesInOutput);
    }
  }
  const largest = [...byOwner].map(([name, bytes]) => ({ name, bytes })).sort((x, y) => y.bytes - x.bytes);
  return { id: b.id, outFile: b.outFile, code: file.text, bytes: file.contents.byteLength, largest };
}

/**
 * A function's environment as the template sets it, for importing its bundle outside Lambda:
 * literal values as they are, a !Ref to a parameter as its default (a stand-in when the default
 * is empty, a value the operator must give), any other intrinsic (!Ref
 * to a resource, !GetAtt, !Sub) as a stand-in naming the variable, !If as its second branch (the value with the template's default parameters, where
 * tracing is off), NODE_OPTIONS left out (it points at a source map the measurement does not
 * write). Plus what Lambda itself sets: the region and (fake) credentials.
 */
export function functionEnvironment(template: JsonObject, id: string): Record<string, string> {
  const resources = isObject(template.Resources) ? template.Resources : {};
  const r = resources[id];
  const props = isObject(r) && isObject(r.Properties) ? r.Properties : {};
  const variables =
    isObject(props.Environment) && isObject(props.Environment.Variables) ? props.Environment.Variables : {};
  const parameters = isObject(template.Parameters) ? template.Parameters : {};
  const value = (name: string, v: unknown): string => {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    const ref = isObject(v as JsonObject) ? (v as JsonObject).Ref : undefined;
    const parameter = typeof ref === 'string' ? parameters[ref] : undefined;
    // A parameter's default, unless it is empty (the operator must give it): then a stand-in.
    if (isObject(parameter) && parameter.Default !== undefined && parameter.Default !== '')
      return value(name, parameter.Default);
    if (isObject(v as JsonObject) && Array.isArray((v as JsonObject)['Fn::If']))
      return value(name, ((v as JsonObject)['Fn::If'] as unknown[])[2]);
    return `stand-in-${name.toLowerCase().replaceAll('_', '-')}`;
  };
  const env: Record<string, string> = {
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_LAMBDA_FUNCTION_NAME: id,
  };
  for (const [name, v] of Object.entries(variables)) if (name !== 'NODE_OPTIONS') env[name] = value(name, v);
  return env;
}

/**
 * The child that imports a bundle: every way out to the network throws first (a module that
 * connects, resolves a name or fetches at import fails the measurement), then it times the import
 * alone (not Node's own start) and prints { ms, handler }.
 */
export const COLD_IMPORT_CHILD = `
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
const refuse = (what) => () => { throw new Error('network use while importing the bundle: ' + what); };
net.connect = net.createConnection = refuse('net.connect');
net.Socket.prototype.connect = refuse('socket.connect');
tls.connect = refuse('tls.connect');
dns.lookup = refuse('dns.lookup');
dns.promises.lookup = refuse('dns.promises.lookup');
globalThis.fetch = refuse('fetch');
const t0 = performance.now();
const mod = await import(process.argv[2]);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, handler: typeof mod.handler }));
`;

export interface ColdImport {
  /** Each fresh process's import time, in milliseconds, in run order. */
  runs: number[];
  medianMs: number;
  /** typeof the bundle's `handler` export ('function' when it is what Lambda calls). */
  handler: string;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/**
 * Imports a bundle in `runs` fresh Node processes (this Node, the pinned one), each with only
 * `env` and PATH, the network shut (COLD_IMPORT_CHILD). A failed import rejects with the child's
 * own error output.
 */
export async function coldImport(b: Bundle, env: Record<string, string>, runs = 5): Promise<ColdImport> {
  const folder = await mkdtemp(join(tmpdir(), 'governor-bundle-'));
  try {
    const file = join(folder, b.outFile);
    const child = join(folder, 'import-child.mjs');
    await writeFile(file, b.code);
    await writeFile(child, COLD_IMPORT_CHILD);
    const times: number[] = [];
    let handler = '';
    for (let i = 0; i < runs; i++) {
      const { stdout } = await promisify(execFile)(process.execPath, [child, file], {
        env: { ...env, PATH: process.env.PATH ?? '' },
        cwd: folder,
      }).catch((error: { stderr?: string; message: string }) => {
        // The last lines say what failed; a line of minified code quoted above them says nothing.
        const said = (error.stderr || error.message)
          .split('\n')
          .filter((line) => /\S/.test(line) && line.length < 400 && !/^\s+at |^Node\.js v/.test(line))
          .slice(-3)
          .join('\n');
        throw new Error(`${b.id}: importing its bundle failed: ${said}`);
      });
      const out = JSON.parse(stdout) as { ms: number; handler: string };
      times.push(out.ms);
      handler = out.handler;
    }
    return { runs: times, medianMs: median(times), handler };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
