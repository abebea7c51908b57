/**
 * The failover group the failover function tests share: chat-east (primary, us-east-1) and
 * chat-west (standby, us-west-2, warm floor 1), routed by Route 53 weighted records.
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
