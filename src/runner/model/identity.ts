/** One caller of the run and what it holds (the identities: execute/identities.ts). */
export interface Identity {
  name: string;
  /** Bearer token: the profile's header, and the security schemes without a credential of their own. */
  token?: string;
  /** Credential per security scheme name (as --auth gives the run's own). */
  auth?: Record<string, string>;
  /** OAuth2 scopes the credential holds (absent: not declared, so no scope check uses the identity). */
  scopes?: string[];
  /** Roles the credential holds (absent: not declared). */
  roles?: string[];
  /** The operation that answers the identity's token (a login, a registration: --auth-from), called once at the start. */
  from?: string;
  /** The JSON body sent to `from` (fields it leaves out drawn afresh). */
  body?: string;
}

/** The run's own credential's name among the identities. */
export const DEFAULT_IDENTITY = 'default';
