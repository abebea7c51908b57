/**
 * The governor CLI's subcommands, loaded lazily so `governor validate` does not pay for the
 * backtest's or the AWS SDK's modules. One line per command.
 */
import type { Command } from './io.ts';

export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

export const COMMANDS: Record<string, CommandEntry> = {
  validate: {
    summary: 'validate FILE...          check policy files; exit 2 with one line per problem',
    load: async () => (await import('./validate.ts')).validateCommand,
  },
  schema: {
    summary: 'schema [--write FILE]     print (or write) the policy file JSON Schema',
    load: async () => (await import('./schema.ts')).schemaCommand,
  },
  invoke: {
    summary: 'invoke evaluate --event FILE [--shadow] [--policy FILE]  run the evaluate handler on an event',
    load: async () => (await import('./invoke.ts')).invokeCommand,
  },
  backtest: {
    summary: 'backtest --trace FILE     replay a trace through every policy; table, --json, --html',
    load: async () => (await import('./backtest.ts')).backtestCommand,
  },
  forecast: {
    summary: 'forecast --trace FILE     score the forecaster against naive and EC2-style baselines',
    load: async () => (await import('./forecast.ts')).forecastCommand,
  },
};
