/**
 * The port the policy, its parts and the kill switch are read through: plain String parameters
 * by name and by path. shared/aws/ssm.ts implements it over SSM Parameter Store; tests pass a
 * map. It lives here, below the adapters, so readPolicy (./read.ts) imports no adapter.
 */

/** One parameter as stored: its full name and its value. */
export interface StoredParameter {
  name: string;
  value: string;
}

export interface ParametersPort {
  /** The parameter's value, or null when it does not exist. */
  get(name: string): Promise<string | null>;
  /**
   * The parameters directly under `path` (not deeper), sorted by name; none is an empty list.
   * `path` has no trailing slash: "/governor/policy/parts".
   */
  under(path: string): Promise<StoredParameter[]>;
}
