/**
 * The failover group the failover function tests share: chat-east (primary, us-east-1) and
 * chat-west (standby, us-west-2, warm floor 1), routed by Route 53 weighted records; its two
 * targets, and its records as ListResourceRecordSets returns them.
 */
export const chatGroup = (health: Record<string, number>) => ({
  id: 'chat',
  members: [
    { targetId: 'chat-east', role: 'primary' },
    { targetId: 'chat-west', role: 'standby', warmFloor: 1 },
  ],
  routing: {
    kind: 'route53-weighted',
    hostedZoneId: 'Z0123456789ABC',
    recordName: 'chat.example.com',
    setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
  },
  health,
});

/** chat-east in us-east-1 and chat-west in us-west-2, SageMaker variants of 1-20 instances. */
export const chatTargets = () =>
  ['us-east-1', 'us-west-2'].map((region) => ({
    id: region === 'us-east-1' ? 'chat-east' : 'chat-west',
    kind: 'sagemaker-variant',
    region,
    endpointName: region === 'us-east-1' ? 'chat-east' : 'chat-west',
    scaling: { minCapacity: 1, maxCapacity: 20 },
    signals: [{ metric: 'invocationsPerInstance', target: 100 }],
  }));

/** The group's two weighted records (east, west) with these weights, as one ListResourceRecordSets page. */
export const weightedRecords = (east: number, west: number) => ({
  ResourceRecordSets: [
    {
      Name: 'chat.example.com.',
      Type: 'A' as const,
      SetIdentifier: 'east',
      Weight: east,
      TTL: 60,
      ResourceRecords: [{ Value: '192.0.2.1' }],
    },
    {
      Name: 'chat.example.com.',
      Type: 'A' as const,
      SetIdentifier: 'west',
      Weight: west,
      TTL: 60,
      ResourceRecords: [{ Value: '192.0.2.2' }],
    },
  ],
  IsTruncated: false,
});
