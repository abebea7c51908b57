/**
 * Trace files (shared/backtest/trace.ts): the four headers, per-second traces summed into
 * minutes with the partial last minute dropped, and every malformed file refused with its line
 * and the fix, never read as something else.
 */
import { describe, expect, it } from 'vitest';
import { parseTrace } from '#shared/backtest/trace.ts';

const parse = (text: string) => parseTrace(text, 't');

describe('reading trace files', () => {
  it('reads a per-minute trace with tokens', () => {
    expect(parse('minute,requests,input_tokens,output_tokens\n0,3,30,6\n1,0,0,0\n2,5,50,10\n')).toEqual({
      name: 't',
      resolution: 'minute',
      requests: [3, 0, 5],
      inputTokens: [30, 0, 50],
      outputTokens: [6, 0, 10],
    });
  });

  it('reads a per-minute trace without tokens (CRLF, a byte-order mark, blank lines)', () => {
    expect(parse('\uFEFFminute,requests\r\n0,4\r\n\r\n1,2\r\n')).toMatchObject({
      requests: [4, 2],
      inputTokens: null,
      outputTokens: null,
    });
  });

  it('reads a token header whose cells are all empty as a trace without tokens (as the NASA trace ships)', () => {
    expect(parse('minute,requests,input_tokens,output_tokens\n0,3,,\n1,4,,\n')).toMatchObject({
      requests: [3, 4],
      inputTokens: null,
      outputTokens: null,
    });
  });

  it('sums a per-second trace into minutes and drops the seconds past the last full minute', () => {
    const rows = Array.from({ length: 150 }, (_, s) => `${s},1,10,2`).join('\n');
    const trace = parse(`second,requests,input_tokens,output_tokens\n${rows}\n`);
    expect(trace).toMatchObject({ resolution: 'second', requests: [60, 60] });
    expect(trace.inputTokens).toEqual([600, 600]);
  });

  it.each([
    { case: 'an empty file', text: '', message: /^the file is empty; it needs the header "minute,requests,/ },
    {
      case: 'an unknown header, naming every accepted one',
      text: 'time,count\n0,1\n',
      message: /line 1: header is "time,count"; expected one of .*"minute,requests", "second,requests"$/,
    },
    { case: 'a negative count', text: 'minute,requests\n0,-3\n', message: /line 2: requests is "-3"/ },
    { case: 'a fraction', text: 'minute,requests\n0,2.5\n', message: /line 2: requests is "2.5"/ },
    { case: 'scientific notation', text: 'minute,requests\n0,1e2\n', message: /line 2: requests is "1e2"/ },
    { case: 'a hexadecimal count', text: 'minute,requests\n0,0x10\n', message: /line 2: requests is "0x10"/ },
    {
      case: 'a count beyond exact integers',
      text: 'minute,requests\n0,90071992547409930\n',
      message: /line 2: requests is "90071992547409930"/,
    },
    { case: 'an empty count', text: 'minute,requests\n0,\n', message: /line 2: requests is empty/ },
    {
      case: 'a row without tokens among rows with them',
      text: 'minute,requests,input_tokens,output_tokens\n0,1,10,2\n1,1,,\n',
      message: /line 3: has no token counts where line 2 has; give every row tokens, or none/,
    },
    {
      case: 'one token cell of two',
      text: 'minute,requests,input_tokens,output_tokens\n0,1,10,2\n1,1,,2\n',
      message: /line 3: input_tokens is empty; every bin needs a count/,
    },
    {
      case: 'extra columns',
      text: 'minute,requests\n0,1,7\n',
      message: /line 2: 3 columns; the header has 2/,
    },
    {
      case: 'a gap in the minutes: the missing minute, and the option that fills it',
      text: 'minute,requests\n0,1\n2,1\n',
      message:
        'line 3: minute 1 is missing (this row is minute 2): add it with 0 requests, or run with --fill-gaps to read missing minutes as 0',
    },
    {
      case: 'a longer gap, named as a range',
      text: 'minute,requests\n0,1\n4,1\n',
      message: /line 3: minutes 1-3 are missing \(this row is minute 4\): add them with 0 requests/,
    },
    {
      case: 'a minute smaller than the one before',
      text: 'minute,requests\n0,1\n1,1\n1,1\n',
      message: /line 4: minute 1 out of order; expected 2/,
    },
    {
      case: 'a CloudWatch export (Timestamp,Value)',
      text: 'Timestamp,Value\n2025-06-01T00:00:00Z,5\n',
      message:
        /line 1: header is "Timestamp,Value", a CloudWatch export \(timestamps and values\), not a trace: governor history --target ID --policy FILE --days N --out trace.csv/,
    },
    {
      case: 'a CloudWatch console download (Label,Timestamps,Values)',
      text: 'Label,Timestamps,Values\nInvocations,2025-06-01 00:00:00,5\n',
      message: /a CloudWatch export .*governor history/,
    },
    { case: 'no rows', text: 'minute,requests\n', message: /has no rows/ },
    { case: 'no full minute of seconds', text: 'second,requests\n0,1\n', message: /has no full minute/ },
    { case: 'no requests at all', text: 'minute,requests\n0,0\n1,0\n', message: /no requests at all/ },
  ])('refuses $case with the line and the fix', ({ text, message }) => {
    expect(() => parse(text)).toThrow(message);
  });
});

describe('--fill-gaps', () => {
  it.each([
    {
      case: 'a missing minute reads as 0 requests',
      text: 'minute,requests\n0,3\n2,5\n',
      requests: [3, 0, 5],
      tokens: null,
    },
    {
      case: 'missing minutes with tokens read as 0 tokens too',
      text: 'minute,requests,input_tokens,output_tokens\n0,1,10,2\n3,1,20,4\n',
      requests: [1, 0, 0, 1],
      tokens: [10, 0, 0, 20],
    },
    {
      case: 'missing seconds count nothing in their minute',
      text: `second,requests\n0,1\n${Array.from({ length: 59 }, (_, i) => `${i + 61},1`).join('\n')}\n`,
      requests: [1, 59],
      tokens: null,
    },
  ])('$case', ({ text, requests, tokens }) => {
    const trace = parseTrace(text, 't', { fillGaps: true });
    expect(trace.requests).toEqual(requests);
    expect(trace.inputTokens).toEqual(tokens);
  });

  it('still refuses a minute smaller than the one before', () => {
    expect(() => parseTrace('minute,requests\n0,1\n3,1\n2,1\n', 't', { fillGaps: true })).toThrow(
      /line 4: minute 2 out of order; expected 4/,
    );
  });
});
