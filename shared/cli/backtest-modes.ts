import { OutageError, parseOutage } from '../backtest/failover/outage.ts';
import { runFailoverBacktest } from '../backtest/failover/run.ts';
import { formatFailoverTable, toFailoverJson } from '../backtest/failover/table.ts';
import { DEFAULT_SPOT, MixInputError, runMixBacktest, type SpotOptions } from '../backtest/mix/run.ts';
import { formatMixTable, toMixJson } from '../backtest/mix/table.ts';
import { progressBar } from '../backtest/progress.ts';
import { TraceError } from '../backtest/trace.ts';
import { INTERRUPTION_BANDS, type InterruptionBand } from '../policy/capacity-mix-schema.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import {
  loadPolicyTarget,
  loadTarget,
  loadTrace,
  planReports,
  scenarioOptions,
  type Values,
  wholeOption,
} from './backtest-inputs.ts';
import { writeOutput } from './files.ts';
import { type CliIo, EXIT, UsageError } from './io.ts';
import { numberOption } from './options.ts';

/**
 * --outage REGION:START:DURATION: the failover backtest (docs/failover.md, "The backtest"): every
 * failover strategy on this trace with the target's region down for DURATION minutes from START.
 * A policy without a failover block gets one built from the target and a mirror in a second region.
 */
export async function outageCommand(values: Values, io: CliIo): Promise<number> {
  const spec = (() => {
    try {
      return parseOutage(values.outage!);
    } catch (error) {
      if (error instanceof OutageError) throw new UsageError(error.message);
      throw error;
    }
  })();
  for (const flag of ['html', 'score-from', 'warm-pool'] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        flag === 'html'
          ? '--html does not apply to --outage: the HTML report draws the default backtest only; write the failover result with --json FILE, or drop --outage for the HTML'
          : `--${flag} does not apply to --outage (a failover backtest has a table and --json only): drop it`,
      );
  }
  const trace = await loadTrace(values, io.cwd);
  const { policy, target } = await loadPolicyTarget(values, io.cwd);
  await planReports(values, io.cwd);
  const options = scenarioOptions(values, target);
  const warmFloor =
    values['warm-floor'] === undefined ? undefined : wholeOption('warm-floor', values['warm-floor'], 1, 1);
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  let result: ReturnType<typeof runFailoverBacktest>;
  try {
    result = runFailoverBacktest({
      trace,
      target,
      policy,
      options,
      outage: spec,
      ...(warmFloor !== undefined ? { warmFloor } : {}),
      onProgress: bar?.update,
    });
  } catch (error) {
    if (error instanceof TraceError || error instanceof OutageError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.done();
  }
  io.stdout(formatFailoverTable(result));
  if (values.json !== undefined) {
    await writeOutput(values.json, `${JSON.stringify(toFailoverJson(result), null, 2)}\n`, io, {
      flag: 'json',
    });
  }
  return EXIT.ok;
}

export const SPOT_ONLY = [
  'spot-price',
  'interruption-band',
  'interruption-scale',
  'committed',
  'committed-price',
  'spot-seed',
  'zone-wide',
  'zones',
  'max-pool-share',
  'loss-domain',
  'over-provision',
] as const;

function spotOptions(values: Values, target: TargetPolicy): SpotOptions {
  const band = values['interruption-band'];
  if (band !== undefined && !INTERRUPTION_BANDS.includes(band as InterruptionBand))
    throw new UsageError(
      `--interruption-band must be one of ${INTERRUPTION_BANDS.join(' ')} (a Spot Instance Advisor band), got "${band}"`,
    );
  if (target.capacityMix) {
    for (const flag of ['spot-price', 'committed', 'committed-price'] as const)
      if (values[flag] !== undefined && !(flag === 'committed' && values[flag] === 'auto'))
        throw new UsageError(
          `--${flag} applies to the reference mix only; ${target.id} has a capacityMix with its own prices and commitment: drop --${flag} or edit the policy`,
        );
    if (!target.capacityMix.spot)
      throw new UsageError(
        `--spot needs a target that may run spot; ${target.id}'s capacityMix has no spot section: add one, or pick another --target`,
      );
  }
  if (values.committed === 'auto') {
    const rate = target.capacityMix ? target.capacityMix.committed.usdPerHour : values['committed-price'];
    if (rate === undefined)
      throw new UsageError(
        target.capacityMix
          ? `--committed auto needs the committed rate: set ${target.id}'s capacityMix.committed.usdPerHour (what one committed instance costs an hour)`
          : '--committed auto needs the committed rate: add --committed-price USD (what one committed instance costs an hour, e.g. a 3-year Savings Plan rate)',
      );
  }
  const d = DEFAULT_SPOT;
  return {
    spotFraction: numberOption('spot-price', values['spot-price'], d.spotFraction, 0.01, 1),
    band: (band as InterruptionBand | undefined) ?? null,
    interruptionScale: numberOption(
      'interruption-scale',
      values['interruption-scale'],
      d.interruptionScale,
      0,
    ),
    committed: values.committed === 'auto' ? 'auto' : wholeOption('committed', values.committed, 0, 0),
    committedUsdPerHour:
      values['committed-price'] === undefined
        ? null
        : numberOption('committed-price', values['committed-price'], 0, 0.0001),
    seed: wholeOption('spot-seed', values['spot-seed'], d.seed, 0),
    zoneWide: numberOption('zone-wide', values['zone-wide'], d.zoneWide, 0, 1),
    ...poolOptions(values, target),
  };
}

const wholeWithin = (name: string, raw: string, min: number, max: number): number => {
  const value = numberOption(name, raw, min, min, max);
  if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return value;
};

/** --zones, --max-pool-share, --loss-domain (issue 22, item 3): the pools and the bound on one loss. */
function poolOptions(
  values: Values,
  target: TargetPolicy,
): Pick<SpotOptions, 'zones' | 'maxPoolShare' | 'lossDomain' | 'overProvision'> {
  const domain = values['loss-domain'];
  if (domain !== undefined && domain !== 'pool' && domain !== 'zone')
    throw new UsageError(`--loss-domain must be pool or zone, got "${domain}"`);
  const zones = values.zones === undefined ? null : wholeWithin('zones', values.zones, 1, 6);
  if (domain === 'zone' && zones === null && target.capacityMix && !target.capacityMix.zones)
    throw new UsageError(
      `--loss-domain zone needs zones: add --zones N, or list ${target.id}'s capacityMix.zones`,
    );
  return {
    zones,
    maxPoolShare:
      values['max-pool-share'] === undefined
        ? null
        : wholeWithin('max-pool-share', values['max-pool-share'], 1, 100),
    lossDomain: domain ?? null,
    overProvision:
      values['over-provision'] === undefined
        ? null
        : wholeWithin('over-provision', values['over-provision'], 0, 100),
  };
}

/** --spot: the capacity mix backtest (docs/capacity-mix.md, "The backtest"): a table and --json. */
export async function spotCommand(values: Values, io: CliIo): Promise<number> {
  for (const flag of ['html', 'score-from', 'warm-pool', 'outage'] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        flag === 'html'
          ? '--html does not apply to --spot: the HTML report draws the default backtest only; write the mix result with --json FILE, or drop --spot for the HTML'
          : `--${flag} does not apply to --spot (a mix backtest has a table and --json only): drop it`,
      );
  }
  const trace = await loadTrace(values, io.cwd);
  const target = await loadTarget(values, io.cwd);
  const spot = spotOptions(values, target);
  await planReports(values, io.cwd);
  const options = scenarioOptions(values, target);
  const bar = io.stderrIsTTY ? progressBar(io.stderr) : undefined;
  let result: ReturnType<typeof runMixBacktest>;
  try {
    result = runMixBacktest({ trace, target, options, spot, onProgress: bar?.update });
  } catch (error) {
    if (error instanceof TraceError || error instanceof MixInputError) throw new UsageError(error.message);
    throw error;
  } finally {
    bar?.done();
  }
  io.stdout(formatMixTable(result));
  if (values.json !== undefined)
    await writeOutput(values.json, `${JSON.stringify(toMixJson(result), null, 2)}\n`, io, { flag: 'json' });
  return EXIT.ok;
}
