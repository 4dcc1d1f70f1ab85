/**
 * What one request of a planned case is (plan/cases.ts plans them, plan/missing-parameters.ts varies them, the
 * request builder sends them): below both planners, so that neither imports the other for it.
 */
import type { SetupStep } from '../description/examples.ts';
import type { InvalidAuth } from '../http/auth-variants.ts';

/** The run's credential ('valid'), one the auth matrix must see refused, or another identity's (`as:<name>`). */
export type AuthMode = 'valid' | InvalidAuth | `as:${string}`;

export interface RequestPlan {
  /** Explicit path parameter values; the others come from records the run creates (fixtures) or are random. */
  pathParams: Record<string, string>;
  query: Record<string, unknown>;
  /** Header and cookie parameters the operation declares (values as sent). */
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  /** Media type of the body when it is not the operation's first (JSON) one. */
  contentType?: string;
  /** JSON body (may hold {{templates}}); absent when the request has none. */
  body?: unknown;
  /** A raw body sent as is (used by the presence probe: malformed JSON that no service acts on). */
  rawBody?: string;
  auth: AuthMode;
  setup: SetupStep[];
}
