/**
 * Governor's decisions, packed for the page. A 27-day NASA run makes ~3,400 decisions whose
 * messages differ only in their numbers ("Scale out from 8 to 11 instances: ... at 105 is
 * 1.25x its target of 84."): as JSON they take ~620 kB, packed ~130 kB (9 templates). A message becomes a
 * template (its text between numbers, stored once) and its numbers as written ("1.25", "0.50":
 * kept as text, so the message comes back character for character); reason codes and actions
 * become indices. Pure; the page unpacks with `unpackDecision` from this module.
 */
import type { DecisionMark } from '../backtest/types.ts';

export const ACTIONS = ['scale-out', 'scale-in', 'hold'] as const;

/** Strings every packed decision points into. */
export interface TextTable {
  reasons: string[];
  /** The pieces of a message around its numbers: n numbers sit between n + 1 pieces. */
  templates: string[][];
}

/** [minute, action index, from, to, reason indices, template index, numbers joined by spaces]. */
export type PackedDecision = [number, number, number, number, number[], number, string];

/** A decision as the page reads it: [minute, action, from, to, reason codes, message]. */
export type DecisionRow = [number, string, number, number, string[], string];

// Digits with an optional fraction; signs and separators stay in the template.
const NUMBER = /\d+(?:\.\d+)?/g;

/** Splits "at 105 is 1.25x" into pieces ["at ", " is ", "x"] and numbers ["105", "1.25"]. */
export function splitMessage(message: string): { pieces: string[]; numbers: string[] } {
  const numbers = message.match(NUMBER) ?? [];
  return { pieces: message.split(NUMBER), numbers };
}

/** A packer that interns reason codes and templates into one table as it goes. */
export function decisionPacker(): { table: TextTable; pack: (d: DecisionMark) => PackedDecision } {
  const table: TextTable = { reasons: [], templates: [] };
  const reasonIndex = new Map<string, number>();
  const templateIndex = new Map<string, number>();
  const intern = <T>(map: Map<string, number>, list: T[], key: string, value: T): number => {
    let i = map.get(key);
    if (i === undefined) {
      i = list.push(value) - 1;
      map.set(key, i);
    }
    return i;
  };
  const pack = (d: DecisionMark): PackedDecision => {
    const { pieces, numbers } = splitMessage(d.message);
    const template = intern(templateIndex, table.templates, JSON.stringify(pieces), pieces);
    const reasons = d.reasons.map((code) => intern(reasonIndex, table.reasons, code, code));
    return [d.minute, ACTIONS.indexOf(d.action), d.from, d.to, reasons, template, numbers.join(' ')];
  };
  return { table, pack };
}

/** The inverse of packing: the decision with its reason codes and message as they were. */
export function unpackDecision(table: TextTable, packed: PackedDecision): DecisionRow {
  const [minute, action, from, to, reasons, template, joined] = packed;
  const pieces = table.templates[template] ?? [''];
  const numbers = joined === '' ? [] : joined.split(' ');
  let message = pieces[0] ?? '';
  for (let i = 0; i < numbers.length; i++) message += numbers[i]! + (pieces[i + 1] ?? '');
  return [minute, ACTIONS[action] ?? 'hold', from, to, reasons.map((r) => table.reasons[r] ?? '?'), message];
}
