import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DecisionMark } from '#shared/backtest/types.ts';
import { decisionPacker, splitMessage, unpackDecision } from '#shared/report/messages.ts';

const mark = (message: string, over: Partial<DecisionMark> = {}): DecisionMark => ({
  minute: 5,
  action: 'scale-out',
  from: 8,
  to: 11,
  reasons: ['ScaleOutBreach'],
  message,
  ...over,
});

describe('packing decision messages', () => {
  it.each([
    {
      case: 'numbers leave the template, written as they were',
      message: 'invocationsPerInstance at 105 is 1.25x its target of 84.',
      pieces: ['invocationsPerInstance at ', ' is ', 'x its target of ', '.'],
      numbers: ['105', '1.25', '84'],
    },
    {
      case: 'a trailing zero is kept as text',
      message: 'ratio 0.50',
      pieces: ['ratio ', ''],
      numbers: ['0.50'],
    },
    { case: 'a message without numbers is one piece', message: 'no data', pieces: ['no data'], numbers: [] },
    { case: 'an empty message is one empty piece', message: '', pieces: [''], numbers: [] },
  ])('$case', ({ message, pieces, numbers }) => {
    expect(splitMessage(message)).toEqual({ pieces, numbers });
  });

  it('stores a template once for messages that differ only in numbers', () => {
    const { table, pack } = decisionPacker();
    pack(mark('Scale out from 8 to 11 instances.'));
    pack(
      mark('Scale out from 11 to 13 instances.', { minute: 40, reasons: ['ScaleOutBreach', 'StepLimitUp'] }),
    );
    expect(table.templates).toEqual([['Scale out from ', ' to ', ' instances.']]);
    expect(table.reasons).toEqual(['ScaleOutBreach', 'StepLimitUp']);
  });

  it.each([
    { case: 'a scale-out', d: mark('Scale out from 8 to 11 instances: 1.25x target.') },
    {
      case: 'a scale-in with two reasons',
      d: mark('every signal below band for 10 periods', {
        action: 'scale-in',
        reasons: ['ScaleInBreach', 'StepLimitDown'],
      }),
    },
    {
      case: 'a hold with markup in its message',
      d: mark('<img src=x onerror=alert(1)> 3 < 4', { action: 'hold', reasons: ['PanicHold'] }),
    },
  ])('unpacks $case as it was', ({ d }) => {
    const { table, pack } = decisionPacker();
    expect(unpackDecision(table, pack(d))).toEqual([d.minute, d.action, d.from, d.to, d.reasons, d.message]);
  });

  it('unpacks any message character for character', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 60 }), { maxLength: 20 }), (messages) => {
        const { table, pack } = decisionPacker();
        const packed = messages.map((m) => pack(mark(m)));
        expect(packed.map((p) => unpackDecision(table, p)[5])).toEqual(messages);
      }),
    );
  });
});
