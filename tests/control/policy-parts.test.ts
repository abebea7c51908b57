/**
 * The policy in parts (shared/policy-store/parts.ts): a main document and parts merge into
 * one policy validated as one, every problem naming the document it comes from; splitting any
 * valid policy and merging the parts gives back the same validated policy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicyText } from '#shared/policy/load.ts';
import { mergePolicyParts, type PolicyText, partsPath } from '#shared/policy-store/parts.ts';
import { bytes, splitPolicy } from '#shared/policy-store/split.ts';
import { exampleFleet, fleetYaml } from './policy-fleet.ts';

const MAIN = '/governor/policy';
const part = (suffix: string, text: string): PolicyText => ({ name: `${MAIN}/parts/${suffix}`, text });
const target = (id: string, endpoint = id) =>
  `{id: ${id}, kind: sagemaker-variant, region: us-east-1, endpointName: ${endpoint}, scaling: {minCapacity: 1, maxCapacity: 4}, signals: [{metric: invocationsPerInstance, target: 100}]}`;
const doc = (...targets: string[]) => `version: 1\ntargets: [${targets.join(', ')}]\n`;

describe('merging a policy with its parts', () => {
  it('appends each part’s targets after the main document’s, in the order given, and says where each came from', () => {
    const merged = mergePolicyParts({ name: MAIN, text: doc(target('a')) }, [
      part('eu', doc(target('b'), target('c'))),
      part('us', doc(target('d'))),
    ]);
    expect(merged.ok && merged.policy.targets.map((t) => t.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(merged.ok && merged.origins).toEqual([
      { name: MAIN, targets: 1 },
      { name: `${MAIN}/parts/eu`, targets: 2 },
      { name: `${MAIN}/parts/us`, targets: 1 },
    ]);
  });

  it('keeps the main document’s other sections, and lets it hold no targets when parts do', () => {
    const merged = mergePolicyParts({ name: MAIN, text: 'version: 1\ntargets: []\n' }, [
      part('001', doc(target('a'))),
    ]);
    expect(merged.ok && merged.policy.targets.map((t) => t.id)).toEqual(['a']);
  });

  it('with no parts, reads the main document exactly as a single policy', () => {
    const text = fleetYaml(3);
    const merged = mergePolicyParts({ name: MAIN, text }, []);
    const single = parsePolicyText(text);
    expect(merged.ok && single.ok && merged.policy).toEqual(single.ok && single.policy);
  });

  it.each([
    {
      case: 'an id used in two documents names both',
      main: doc(target('x')),
      parts: [part('eu', doc(target('a'), target('b'), target('x', 'other')))],
      problems: [
        `${MAIN}/parts/eu: targets[2].id "x" is already used by ${MAIN} targets[0]: ids must be unique`,
      ],
    },
    {
      case: 'an id used twice in one part names it once',
      main: doc(target('a')),
      parts: [part('eu', doc(target('b'), target('b', 'other')))],
      problems: [`${MAIN}/parts/eu: targets[1].id "b" is already used by targets[0]: ids must be unique`],
    },
    {
      case: 'the same resource in two parts',
      main: doc(target('a')),
      parts: [part('eu', doc(target('b', 'shared'))), part('us', doc(target('c', 'shared')))],
      problems: [
        `${MAIN}/parts/us: targets[0] manages the same resource as ${MAIN}/parts/eu targets[0] (us-east-1/endpoint/shared/variant/AllTraffic): two policies would fight over it`,
      ],
    },
    {
      case: 'a cross-field rule broken in a part names the part and its own index',
      main: doc(target('a')),
      parts: [
        part(
          'eu',
          doc(
            target('b'),
            '{id: c, kind: sagemaker-variant, region: us-east-1, endpointName: c, scaling: {minCapacity: 9, maxCapacity: 4}, signals: [{metric: invocationsPerInstance, target: 100}]}',
          ),
        ),
      ],
      problems: [
        `${MAIN}/parts/eu: targets[1].scaling.minCapacity (9) is greater than maxCapacity (4): lower minCapacity or raise maxCapacity`,
      ],
    },
    {
      case: 'a schema problem in a part names the part',
      main: doc(target('a')),
      parts: [
        part(
          'eu',
          doc(
            '{id: b, kind: sagemaker-variant, region: us-east-1, endpointName: b, scaling: {minCapacity: 1, maxCapacity: 4}, signals: [{metric: invocationsPerInstance, target: "100"}]}',
          ),
        ),
      ],
      problems: [`${MAIN}/parts/eu: targets[0].signals[0].target must be a number, got a string ("100")`],
    },
    {
      case: 'a part that is not YAML fails with its line',
      main: doc(target('a')),
      parts: [part('eu', 'version: 1\ntargets: [\n')],
      problems: [
        expect.stringMatching(new RegExp(`^${MAIN}/parts/eu: \\(line \\d+\\) is not valid YAML or JSON: `)),
      ],
    },
    {
      case: 'a part with another section is told to move it to the main document',
      main: doc(target('a')),
      parts: [part('eu', `${doc(target('b'))}failover: {groups: []}\n`)],
      problems: [
        `${MAIN}/parts/eu: (file) has unknown field "failover": a part holds only version and targets; put other sections in ${MAIN}`,
      ],
    },
    {
      case: 'a part without a version',
      main: doc(target('a')),
      parts: [part('eu', `targets: [${target('b')}]\n`)],
      problems: [`${MAIN}/parts/eu: version is required: write version: 1, as in ${MAIN}`],
    },
    {
      case: 'a part whose version differs',
      main: doc(target('a')),
      parts: [part('eu', `version: 2\ntargets: [${target('b')}]\n`)],
      problems: [`${MAIN}/parts/eu: version is 2 but ${MAIN} has 1: the versions must agree`],
    },
    {
      case: 'an empty part',
      main: doc(target('a')),
      parts: [part('eu', 'version: 1\ntargets: []\n')],
      problems: [`${MAIN}/parts/eu: targets is empty: add targets, or delete the part`],
    },
    {
      case: 'a main document with no targets and no parts',
      main: 'version: 1\ntargets: []\n',
      parts: [],
      problems: [`${MAIN}: targets needs at least one target`],
    },
    {
      case: 'a CloudWatch-source rule broken in a part',
      main: doc(target('a')),
      parts: [
        part(
          'eu',
          doc(
            '{id: b, kind: ec2-asg, region: us-east-1, autoScalingGroupName: g, scaling: {minCapacity: 1, maxCapacity: 4}, signals: [{metric: queueDepthPerInstance, target: 5}]}',
          ),
        ),
      ],
      problems: [
        `${MAIN}/parts/eu: targets[0].signals[0].cloudwatch is required for queueDepthPerInstance on kind ec2-asg: no built-in metric carries it, so name the namespace, metricName and dimensions`,
      ],
    },
  ])('$case', ({ main, parts, problems }) => {
    const merged = mergePolicyParts({ name: MAIN, text: main }, parts);
    expect(merged.ok ? [] : merged.problems).toEqual(problems);
  });

  it('puts the parts under <name>/parts', () => {
    expect(partsPath('/governor/policy')).toBe('/governor/policy/parts');
    expect(partsPath('/governor/policy/')).toBe('/governor/policy/parts');
  });
});

describe('the published count of parts', () => {
  const target = (id: string) => ({
    id,
    kind: 'sagemaker-variant',
    region: 'us-east-1',
    endpointName: id,
    scaling: { minCapacity: 1, maxCapacity: 4 },
    signals: [{ metric: 'invocationsPerInstance', target: 100 }],
  });
  const main = (count: number) => ({
    name: MAIN,
    text: JSON.stringify({ version: 1, targets: [], parts: { count } }),
  });
  const parts = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      part(String(i + 1).padStart(3, '0'), JSON.stringify({ version: 1, targets: [target(`t${i}`)] })),
    );

  it('matching: the policy loads, without the count in it', () => {
    const merged = mergePolicyParts(main(3), parts(3));
    expect(merged.ok).toBe(true);
    expect(merged.ok && 'parts' in merged.policy).toBe(false);
    expect(merged.ok && merged.policy.targets.map((t) => t.id)).toEqual(['t0', 't1', 't2']);
  });

  it.each([
    [3, 2, 'parts.count is 3 but 2 parts were found: a part is missing'],
    [3, 4, 'parts.count is 3 but 4 parts were found: a part is left over from another split'],
    [1, 0, 'parts.count is 1 but 0 parts were found: a part is missing'],
  ])('declared %i, found %i: the load fails, never a smaller or larger fleet', (declared, found, says) => {
    const merged = mergePolicyParts(main(declared), parts(found));
    expect(merged.ok).toBe(false);
    expect(!merged.ok && merged.problems[0]).toBe(
      `${MAIN}: ${says}; publish the policy again with governor policy split and the commands it prints`,
    );
  });

  it('a main document without a count takes the parts it finds (a policy split by hand)', () => {
    const merged = mergePolicyParts({ name: MAIN, text: '{"version":1,"targets":[]}' }, parts(2));
    expect(merged.ok).toBe(true);
  });
});

describe('splitting a policy into parts', () => {
  it('1,000 targets written like examples/policy.yaml fit in parts of under 8,192 bytes each and merge back', () => {
    const fleet = exampleFleet(1000);
    const result = splitPolicy(fleet, 8192);
    if (!result.ok) throw new Error(result.problem);
    const { main, parts } = result.split;
    expect(main).toBe('{"version":1,"targets":[],"parts":{"count":112}}');
    expect(parts).toHaveLength(112); // 9 targets a part, about 830 bytes each
    for (const text of parts) expect(bytes(text)).toBeLessThan(8192);
    const merged = mergePolicyParts(
      { name: MAIN, text: main },
      parts.map((text, i) => part(String(i + 1).padStart(3, '0'), text)),
    );
    const single = parsePolicyText(JSON.stringify(fleet));
    expect(merged.ok && single.ok && merged.policy).toEqual(single.ok && single.policy);
  });

  it('keeps a policy that fits in one document whole', () => {
    const fleet = exampleFleet(2);
    expect(splitPolicy(fleet, 8192)).toEqual({ ok: true, split: { main: JSON.stringify(fleet), parts: [] } });
  });

  it('refuses a target too large for a part on its own, naming it', () => {
    const result = splitPolicy(exampleFleet(3), 600);
    expect(result.ok ? '' : result.problem).toMatch(
      /^targets\[0\] \("chat-llm-0000"\) takes \d+ bytes in a part on its own, more than 600: raise --max-bytes/,
    );
  });

  it('counts UTF-8 bytes as SSM does, not characters', () => {
    const fleet = exampleFleet(12);
    for (const t of fleet.targets) t.id = `${String(t.id)}-é€`; // 2 and 3 bytes
    const result = splitPolicy(fleet, 4096);
    if (!result.ok) throw new Error(result.problem);
    for (const text of result.split.parts) expect(bytes(text)).toBeLessThanOrEqual(4096);
    expect(result.split.parts.some((text) => bytes(text) > text.length)).toBe(true);
  });

  it('gives back the same validated policy for any policy, any limit (property)', () => {
    const ids = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(
        ids,
        fc.integer({ min: 900, max: 8192 }),
        fc.integer({ min: 1, max: 4 }),
        (names, maxBytes, signals) => {
          const fleet = exampleFleet(names.length);
          fleet.targets.forEach((t, i) => {
            t.id = names[i];
            t.endpointName = `ep-${names[i]}`;
            t.signals = (t.signals as unknown[]).slice(0, signals);
          });
          const single = parsePolicyText(JSON.stringify(fleet));
          if (!single.ok) return; // not a valid policy: nothing to split
          const result = splitPolicy(fleet, maxBytes);
          if (!result.ok) return; // a target larger than the limit: refused, tested above
          for (const text of [result.split.main, ...result.split.parts])
            expect(bytes(text)).toBeLessThanOrEqual(maxBytes);
          const merged = mergePolicyParts(
            { name: MAIN, text: result.split.main },
            result.split.parts.map((text, i) => part(String(i + 1).padStart(3, '0'), text)),
          );
          expect(merged.ok ? merged.policy : merged.problems).toEqual(single.policy);
        },
      ),
      { numRuns: 60, seed: 13 },
    );
  });
});
