/** The act function's refusals, named for the state machine's failure record (./act.ts throws them). */

/** A refusal or a malformed event, named for the state machine's failure record. */
export type ActErrorName =
  | 'InvalidActEvent'
  | 'KillSwitchOn'
  | 'UnmanagedTarget'
  | 'CapacityBusy'
  | 'RoutingNotMapped'
  | 'NotInPolicy';
export class ActError extends Error {
  override readonly name: ActErrorName;
  constructor(name: ActErrorName, message: string) {
    super(message);
    this.name = name;
  }
}
