/**
 * `governor pause | resume | release [--stack NAME] [--region R]`: set the deployed stack's kill
 * switch (its KillSwitchParameterName output) to on, off or release, and say what that does.
 * Reads the value first, so the line says what it was.
 */
import { readParameter, writeKillSwitch } from '../aws/live-stack.ts';
import { KILL_SWITCH_VALUES } from '../invocation/kill-switch.ts';
import { type SwitchAction, switchLine } from '../live/switch.ts';
import { type CliIo, type Command, EXIT, UsageError } from './io.ts';
import { awsCall, findStack, LIVE_OPTIONS, liveTarget, ssmFor } from './live.ts';
import { parseOptions } from './options.ts';

function switchCommand(action: SwitchAction): Command {
  return async (args: string[], io: CliIo) => {
    const { values, positionals } = parseOptions({ args, allowPositionals: true, options: LIVE_OPTIONS });
    if (positionals.length > 0)
      throw new UsageError(
        `unexpected argument ${JSON.stringify(positionals[0])}; run governor ${action} --help`,
      );
    const target = liveTarget(values);
    const stack = await findStack(target);
    const ssm = ssmFor(target);
    const name = stack.killSwitchParameter;
    const before = await awsCall(target, 'ssm:GetParameter', () => readParameter(ssm, name));
    if (before !== KILL_SWITCH_VALUES[action])
      await awsCall(target, 'ssm:PutParameter', () => writeKillSwitch(ssm, name, KILL_SWITCH_VALUES[action]));
    io.stdout(switchLine(action, name, before));
    return EXIT.ok;
  };
}

export const pauseCommand = switchCommand('pause');
export const resumeCommand = switchCommand('resume');
export const releaseCommand = switchCommand('release');
