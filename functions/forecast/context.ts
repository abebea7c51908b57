/**
 * What one forecast run gives each target: the configuration, the ports, the telemetry, the
 * run's time, whether changes are withheld, and the time left.
 */
import type { TimeLeft } from '../../shared/invocation/budget.ts';
import type { ForecastConfig } from './config.ts';
import type { Withheld } from './outcomes.ts';
import type { ForecastPorts } from './ports.ts';
import type { ForecastTelemetry } from './telemetry.ts';

export interface RunContext {
  config: ForecastConfig;
  ports: ForecastPorts;
  telemetry: ForecastTelemetry;
  now: number;
  /**
   * Set: plan and log, but put no scheduled action and resize no warm pool. Under the kill
   * switch, also delete none: nothing that changes capacity is written, Governor's earlier
   * actions stay as they are. In shadow mode Governor's earlier actions are removed.
   */
  withheld: Withheld | null;
  /** Milliseconds left before the run's deadline (shared/invocation/budget.ts). */
  leftMs: TimeLeft;
}
