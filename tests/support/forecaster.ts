/** The forecast function's run, wired to the real adapters against a moto_server, in active mode. */
import { awsForecastPorts } from '#functions/forecast/ports.ts';
import { createForecaster, type ForecasterDeps } from '#functions/forecast/run.ts';
import { createClients } from '#shared/aws/clients.ts';
import { TEST_CREDENTIALS, TEST_REGION } from './moto.ts';

export function motoForecaster(
  endpoint: string,
  names: { policyParameter: string; table: string },
  telemetry: ForecasterDeps['telemetry'],
) {
  const clients = createClients({
    region: TEST_REGION,
    endpoint,
    credentials: TEST_CREDENTIALS,
    maxAttempts: 2,
  });
  return createForecaster({
    config: {
      POLICY_PARAMETER_NAME: names.policyParameter,
      STATE_TABLE_NAME: names.table,
      KILL_SWITCH_PARAMETER_NAME: '/governor/kill-switch',
      GOVERNOR_MODE: 'active',
      MAX_TICK_AGE_SECONDS: 600,
      AWS_REGION: TEST_REGION,
    },
    ports: awsForecastPorts(clients, names.table),
    telemetry,
  });
}
