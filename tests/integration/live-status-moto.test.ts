/**
 * The read-only live commands, `governor status` and `governor shadow-report`, on a
 * moto-deployed stack, through the real SDK: a SageMaker variant in
 * us-east-1 with a standby in us-west-2 (a failover group routed by Route 53 weighted records),
 * an Auto Scaling group with a capacity mix and one with a warm pool (AWS refuses both on one
 * group). One evaluate tick in shadow mode writes the state items and decision records; the
 * failover, mix and spot items and an error budget ledger are put as their stores write them; one
 * scale-target execution is left running.
 * Status shows every part, --json the same, and it writes nothing: every SDK call it makes is a
 * read, and the table's items are the same after it. For shadow-report, an hour of the group's
 * GroupInServiceInstances (3 instances) and of shadow decisions (2 for 40 minutes, then 4) are
 * put in. One moto server for the file.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoScalingClient, PutWarmPoolCommand } from '@aws-sdk/client-auto-scaling';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DeleteTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  ChangeResourceRecordSetsCommand,
  CreateHostedZoneCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { CreateStateMachineCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { BatchWriteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamoFailoverStore } from '#shared/aws/failover-store.ts';
import { dynamoMixItems } from '#shared/aws/mix-item.ts';
import { initialSpotState } from '#shared/interruptions/state.ts';
import { SliLedger } from '#shared/slo/ledger.ts';
import { evaluatorOnStack, stubLiveEnv } from '../live/moto-evaluate.ts';
import { deployGovernorStack } from '../live/moto-stack.ts';
import { runCli } from '../support/cli.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createDemoGroup,
  type MotoServer,
  motoGate,
  putDatapoints,
  startMoto,
  TEST_ACCOUNT,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();
const STACK = 'governor-status';
const MACHINE = `arn:aws:states:${TEST_REGION}:${TEST_ACCOUNT}:stateMachine:governor-status-scale`;
const NAMES = {
  table: 'governor-status-state',
  killSwitch: '/governor-status/kill-switch',
  policy: '/governor-status/policy',
  stateMachineArn: MACHINE,
};
const WEST = 'us-west-2';

const policy = (zoneId: string) => `version: 1
targets:
  - id: llm
    kind: sagemaker-variant
    region: ${TEST_REGION}
    endpointName: status-llm
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 100 }
      - { metric: p95LatencyMs, sloMs: 2000 }
  - id: llm-west
    kind: sagemaker-variant
    region: ${WEST}
    endpointName: status-llm
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 100 }
  - id: batch
    kind: ec2-asg
    region: ${TEST_REGION}
    autoScalingGroupName: status-batch
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: gpuUtilization, target: 70 }
    capacityMix:
      pools:
        - { instanceType: g5.2xlarge, onDemandUsdPerHour: 1.212 }
      committed: { instances: 1, instanceType: g5.2xlarge, usdPerHour: 0.76 }
  # AWS refuses a warm pool beside a MixedInstancesPolicy, which any capacityMix writes: its own group.
  - id: pool
    kind: ec2-asg
    region: ${TEST_REGION}
    autoScalingGroupName: status-pool
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: gpuUtilization, target: 70 }
    warmPool: { minSize: 1, maxSize: 4 }
failover:
  groups:
    - id: llm-group
      members:
        - { targetId: llm, role: primary }
        - { targetId: llm-west, role: standby, warmFloor: 1 }
      routing:
        kind: route53-weighted
        hostedZoneId: ${zoneId}
        recordName: llm.example.com
        recordType: A
        setIdentifiers: { ${TEST_REGION}: llm-use1, ${WEST}: llm-usw2 }
`;

const WRITES =
  /^(Put|Update|Delete|Create|Register|Set|Start|Stop|Suspend|Resume|Change|BatchWrite|Deregister)/;

describe.skipIf(!gate.available)('governor status on a moto-deployed stack', () => {
  let moto: MotoServer;
  let dynamo: DynamoDBClient;
  let policyText = '';
  const now = Date.now();
  const cli = (...args: string[]) => runCli([...args, '--stack', STACK, '--region', TEST_REGION]);

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    const r53 = new Route53Client(config);
    // moto draws 22 letters and digits for a zone id; the policy wants Route 53's leading Z.
    let zoneId = '';
    for (let i = 0; i < 500 && !zoneId.startsWith('Z'); i++) {
      const zone = await r53.send(
        new CreateHostedZoneCommand({ Name: 'example.com', CallerReference: `status-moto-${i}` }),
      );
      zoneId = zone.HostedZone!.Id!.replace('/hostedzone/', '');
    }
    const record = (SetIdentifier: string, Weight: number) => ({
      Action: 'CREATE' as const,
      ResourceRecordSet: {
        Name: 'llm.example.com.',
        Type: 'A' as const,
        SetIdentifier,
        Weight,
        TTL: 60,
        ResourceRecords: [{ Value: '192.0.2.10' }],
      },
    });
    await r53.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zoneId,
        ChangeBatch: { Changes: [record('llm-use1', 90), record('llm-usw2', 10)] },
      }),
    );
    policyText = policy(zoneId);
    await deployGovernorStack(new CloudFormationClient(config), STACK, NAMES, policyText);
    await createDemoEndpoint(new SageMakerClient(config), 'status-llm', 2);
    await createDemoEndpoint(new SageMakerClient({ ...config, region: WEST }), 'status-llm', 1);
    const asg = new AutoScalingClient(config);
    await createDemoGroup(asg, 'status-batch', 3);
    await createDemoGroup(asg, 'status-pool', 2);
    await asg.send(
      new PutWarmPoolCommand({ AutoScalingGroupName: 'status-pool', MinSize: 1, PoolState: 'Stopped' }),
    );
    const sfn = new SFNClient(config);
    await sfn.send(
      new CreateStateMachineCommand({
        name: 'governor-status-scale',
        definition: JSON.stringify({
          StartAt: 'Wait',
          States: { Wait: { Type: 'Wait', Seconds: 600, End: true } },
        }),
        roleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/governor-scale-target`,
      }),
    );
    await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: MACHINE,
        name: '20250602T120030000Z-1f3a9c2e',
        input: JSON.stringify({
          decisionId: '20250602T120030000Z-1f3a9c2e',
          targetId: 'llm',
          desiredCapacity: 4,
        }),
      }),
    );

    await evaluatorOnStack(moto.endpoint, NAMES, { GOVERNOR_MODE: 'shadow' })(now - 60_000);

    const doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    const ledger = new SliLedger(5, 30 * 1440);
    const minute = Math.floor(now / 60_000);
    for (let m = minute - 100; m < minute; m++)
      ledger.record({ minute: m, good: m % 25 !== 0, requests: 100 });
    await doc.send(
      new UpdateCommand({
        TableName: NAMES.table,
        Key: { pk: 'TARGET#llm', sk: 'STATE' },
        UpdateExpression: 'SET slo = :slo',
        ExpressionAttributeValues: {
          ':slo': {
            ledger: ledger.toJSON(),
            headroom: { factor: 0.9, lastLoosenAt: null, lastTightenAt: now - 600_000 },
          },
        },
      }),
    );
    await dynamoFailoverStore(doc, NAMES.table).write('llm-group', null, {
      state: {
        version: 1,
        phase: 'shifting',
        health: {},
        weights: { [TEST_REGION]: 50, [WEST]: 50 },
        direction: 'failover',
        source: TEST_REGION,
        shares: { [WEST]: 100 },
        step: 1,
        phaseSince: now - 300_000,
        checkSince: now - 120_000,
        needed: { 'llm-west': 2 },
        lastFailoverAt: now - 900_000,
        failedOverAt: null,
      },
      mode: 'shadow',
      lastEventId: 'e1',
    });
    // The mix state and the spot state share one versioned item (issue 18).
    await dynamoMixItems(doc, NAMES.table).put(
      'batch',
      {
        state: {
          version: 1,
          plan: {
            capacity: 3,
            onDemand: 1,
            committed: 1,
            spot: 2,
            spotByPool: { 'g5.2xlarge': 2 },
            largestSpotPool: 2,
            mixedInstancesPolicy: {
              onDemandBaseCapacity: 1,
              onDemandPercentageAboveBaseCapacity: 0,
              onDemandAllocationStrategy: 'prioritized',
              spotAllocationStrategy: 'price-capacity-optimized',
              overrides: [{ instanceType: 'g5.2xlarge' }],
            },
            usdPerHour: 1.73,
            sizedFor: 1,
            shapedBy: [],
          },
          lastChangeAt: now - 3_600_000,
          pendingSince: null,
        },
        spot: {
          ...initialSpotState(),
          breakerOpenUntil: now + 1_800_000,
          breakerOpenedAt: now - 60_000,
          warnings: { 'i-1': now - 60_000 },
        },
      },
      0,
    );
    // shadow-report: an hour that ends 10 minutes before the window does, one datapoint and one shadow decision a minute.
    const end = Math.floor((now - 180_000) / 60_000) * 60_000;
    const minutes = Array.from({ length: 60 }, (_, k) => end - (70 - k) * 60_000);
    await putDatapoints(
      new CloudWatchClient(config),
      'AWS/AutoScaling',
      minutes.map((at) => ({
        MetricName: 'GroupInServiceInstances',
        Dimensions: [{ Name: 'AutoScalingGroupName', Value: 'status-batch' }],
        Timestamp: new Date(at + 30_000),
        Value: 3,
      })),
    );
    const records = minutes.map((at, k) => {
      const iso = new Date(at + 20_000).toISOString();
      const decision = {
        currentCapacity: 3,
        desiredCapacity: k < 40 ? 2 : 4,
        reasons: ['WithinBand'],
        message: 'x',
      };
      const detail = 'shadow mode: nothing is changed';
      const item = {
        pk: 'TARGET#batch',
        sk: `DECISION#${iso}#d${k}`,
        at: iso,
        mode: 'shadow',
        outcome: 'shadow',
        detail,
        decision,
      };
      return { PutRequest: { Item: item } };
    });
    for (let i = 0; i < records.length; i += 25)
      await doc.send(new BatchWriteCommand({ RequestItems: { [NAMES.table]: records.slice(i, i + 25) } }));
    dynamo = new DynamoDBClient(config);
    stubLiveEnv(moto.endpoint);
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  it('shows every part of each target: mode, switch, capacity, last decision, in flight, warm pool, failover and routing, mix and spot, the error budget', async () => {
    const run = await cli('status');
    expect(run).toMatchObject({ code: 0, err: [] });
    const text = run.out.join('\n');
    expect(run.out[0]).toBe(`llm: endpoint status-llm, variant AllTraffic (${TEST_REGION})`);
    expect(text).toMatch(/ {2}mode {11}shadow \(the last decision's\)/);
    expect(text).toMatch(/ {2}kill switch {4}off/);
    expect(text).toMatch(/ {2}capacity {7}2 serving, 2 desired \(InService\)/);
    expect(text).toMatch(/ {2}last decision {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}2 -> 2 {4}shadow/);
    expect(text).toMatch(/ {2}in flight {6}1 running: 20250602T120030000Z-1f3a9c2e \(since /);
    expect(text).toMatch(/ {2}failover {7}group llm-group: phase shifting \(failover of us-east-1\)/);
    expect(text).toMatch(
      / {2}routing {8}weights us-east-1 50, us-west-2 50 \(intent, last applied\); route53-weighted says us-east-1 90, us-west-2 10/,
    );
    expect(text).toMatch(
      / {2}slo {12}99\.5 % of minutes within the SLO over 30 days: 96\.00 % attained over 100 minutes \(4 bad\); .* slow burn 8\.00, headroom factor 0\.9/,
    );
    expect(text).toMatch(/ {2}warm pool {6}min 1, max prepared group max \(Stopped\)/);
    expect(text).toMatch(
      / {2}mix plan {7}3 instances: 1 on-demand \(1 committed\) \+ 2 spot, 1\.73 USD an hour/,
    );
    expect(text).toMatch(/ {2}spot {11}breaker open until .*; every pool available; 1 interruption warning/);
  });

  it('--target and --json: one object for the one target', async () => {
    const run = await cli('status', '--target', 'batch', '--json');
    expect(run).toMatchObject({ code: 0, err: [] });
    expect(run.out).toHaveLength(1);
    const status = JSON.parse(run.out[0]!);
    expect(status).toMatchObject({
      id: 'batch',
      kind: 'ec2-asg',
      mode: 'shadow',
      killSwitch: 'off',
      capacity: { desired: 3, status: 'InService' },
      warmPool: null,
      mix: { plan: { capacity: 3, spot: 2 }, spot: { unavailablePools: [], warnings: 1 } },
      failover: null,
      inFlight: [],
    });
  });

  it('status and shadow-report write nothing: every call they make is a read, and the table holds the same items after them', async () => {
    const scan = async () =>
      JSON.stringify(
        ((await dynamo.send(new ScanCommand({ TableName: NAMES.table }))).Items ?? []).map((i) => i),
      );
    const before = await scan();
    const require = createRequire(import.meta.url);
    const { Client } = require(require.resolve('@smithy/core/client')) as {
      Client: { prototype: { send: (command: unknown) => unknown } };
    };
    const send = vi.spyOn(Client.prototype, 'send');
    const run = await cli('status');
    const report = await cli('shadow-report', '--target', 'batch', '--days', '1');
    const calls = send.mock.calls.map(([c]) => (c as object).constructor.name.replace(/Command$/, ''));
    send.mockRestore();
    expect([run.code, report.code]).toEqual([0, 0]);
    expect(calls).toContain('GetMetricData');
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.filter((name) => WRITES.test(name))).toEqual([]);
    expect(await scan()).toBe(before);
  });

  it('shadow-report: the verdict first, the hour compared minute by minute, cost at the capacity mix price; --json and --html written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-'));
    try {
      const run = await cli(
        'shadow-report',
        '--target',
        'batch',
        '--days',
        '1',
        '--json',
        join(dir, 'shadow.json'),
        '--html',
        join(dir, 'shadow.html'),
      );
      expect(run.code).toBe(0);
      expect(run.out[0]).toBe(
        "Over the last 1 day (60 minutes compared), Governor would have run 2.7 instance-hours against the fleet's 3.0: 11.1 % fewer instance-hours than the fleet, 0.40 USD less at 1.212 USD an instance-hour; it would have been short in 40 minutes and long in 20.",
      );
      expect(run.out.find((l) => l.startsWith('fleet capacity from'))).toMatch(
        / AWS\/AutoScaling GroupInServiceInstances \(AutoScalingGroupName=status-batch\)$/,
      );
      expect(run.err).toEqual([
        `wrote ${join(dir, 'shadow.json')} (outside the working folder ${process.cwd()})`,
        `wrote ${join(dir, 'shadow.html')} (outside the working folder ${process.cwd()})`,
      ]);
      const json = JSON.parse(readFileSync(join(dir, 'shadow.json'), 'utf8'));
      expect(json.figures).toMatchObject({
        compared: 60,
        shortMinutes: 40,
        longMinutes: 20,
        largestShortfall: 1,
      });
      expect(json.series).toHaveLength(1440);
      expect(readFileSync(join(dir, 'shadow.html'), 'utf8')).toContain(
        '<p class="verdict" id="verdict">Over the last 1 day',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shadow-report says in one sentence why nothing can be judged when the fleet has no capacity datapoint', async () => {
    const run = await cli('shadow-report', '--target', 'llm', '--days', '1');
    expect(run).toMatchObject({ code: 0, err: [] });
    expect(run.out[0]).toBe(
      "Over the last 1 day (0 minutes compared), nothing can be judged: the fleet's capacity has no datapoint in CloudWatch (Governor CurrentCapacity (TargetId=llm)).",
    );
  });

  it.each([
    {
      case: 'a stack that does not exist',
      args: ['status', '--stack', 'no-such-stack', '--region', TEST_REGION],
      line: 'governor status: no stack no-such-stack in us-east-1: deploy Governor (sam deploy --guided), or name yours with --stack NAME and its region with --region',
    },
    {
      case: 'a target that is not in the deployed policy',
      args: ['status', '--target', 'nope', '--stack', STACK, '--region', TEST_REGION],
      line: 'governor status: no target nope in the deployed policy /governor-status/policy (its targets: llm, llm-west, batch, pool)',
    },
    {
      case: 'shadow-report over more days than CloudWatch keeps minutes',
      args: ['shadow-report', '--target', 'batch', '--days', '20', '--stack', STACK, '--region', TEST_REGION],
      line: 'governor shadow-report: --days must be a number from 1 to 14, got "20"',
    },
  ])('names the fix in one line, exit 2, for $case', async ({ args, line }) => {
    const run = await runCli(args);
    expect(run).toMatchObject({ code: 2, out: [], err: [line] });
  });

  it('names the fix in one line, exit 2, for a stack whose table was deleted', async () => {
    const config = awsTestConfig(moto.endpoint);
    const gone = { table: 'gone-state', killSwitch: '/gone/kill-switch', policy: '/gone/policy' };
    await deployGovernorStack(new CloudFormationClient(config), 'governor-gone', gone, policyText);
    await dynamo.send(new DeleteTableCommand({ TableName: gone.table }));
    const run = await runCli(['status', '--stack', 'governor-gone', '--region', TEST_REGION]);
    expect(run).toMatchObject({
      code: 2,
      out: [],
      err: [
        "governor status: the stack's state table gone-state does not exist in us-east-1: was it deleted? sam deploy puts it back (docs/deploy.md)",
      ],
    });
  });

  it('names the fix in one line, exit 2, without credentials', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    vi.stubEnv('AWS_PROFILE', '');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', '/nonexistent/credentials');
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/config');
    try {
      const run = await cli('status');
      expect(run).toMatchObject({ code: 2, out: [] });
      expect(run.err).toEqual([
        expect.stringMatching(/^governor status: no AWS credentials found: set AWS_PROFILE/),
      ]);
    } finally {
      stubLiveEnv(moto.endpoint);
    }
  });
});
