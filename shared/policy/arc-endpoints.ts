/**
 * ARC cluster endpoints are AWS's own: https://host-aaaaaa.route53-recovery-cluster.<region>.<the
 * partition's DNS suffix>[/v1], in the endpoint's own region, no port, user, query or fragment.
 * Calls to them are signed with Governor's credentials, so a policy or an execution input naming
 * another host would send signed calls there (issue 18, item 3). One check, for the policy schema
 * (./failover-schema.ts), the act function's event and the ARC adapter (shared/aws/routing-arc-read.ts).
 * Pure.
 */

/** The DNS suffixes of AWS's partitions (the SDK's partitions table: aws, aws-cn, aws-eusc, aws-iso*, aws-us-gov). */
export const AWS_DNS_SUFFIXES = [
  'amazonaws.com',
  'amazonaws.com.cn',
  'amazonaws.eu',
  'c2s.ic.gov',
  'sc2s.sgov.gov',
  'cloud.adc-e.uk',
  'csp.hci.ic.gov',
] as const;

/** host-aaaaaa.route53-recovery-cluster.us-west-2.amazonaws.com, in `region`, on an AWS suffix. */
export function isClusterHost(url: URL, region: string): boolean {
  const suffix = AWS_DNS_SUFFIXES.find((s) =>
    url.hostname.endsWith(`.route53-recovery-cluster.${region}.${s}`),
  );
  if (!suffix) return false;
  const host = url.hostname.slice(0, -`.route53-recovery-cluster.${region}.${suffix}`.length);
  return (
    url.protocol === 'https:' &&
    url.port === '' &&
    url.username === '' &&
    url.password === '' &&
    /^[a-z0-9][a-z0-9-]{0,62}$/.test(host) &&
    /^(\/v1)?\/?$/.test(url.pathname) &&
    url.search === '' &&
    url.hash === ''
  );
}
