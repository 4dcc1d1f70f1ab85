/** What a comparison of two versions of a contract reports (src/runner/compat/). */
export type Level = 'breaking' | 'warning' | 'info';
export type Direction = 'request' | 'response' | 'none';
export type Area =
  | 'operation'
  | 'path'
  | 'parameter'
  | 'header'
  | 'request body'
  | 'response body'
  | 'status'
  | 'media type'
  | 'security';

export interface Rule {
  /** Stable id; oasdiff's id where the meaning is the same. */
  id: string;
  level: Level;
  direction: Direction;
  area: Area;
}

/** One change between the base (the last release's contract) and the revision. */
export interface Change {
  rule: string;
  level: Level;
  direction: Direction;
  area: Area;
  /** `METHOD /path` as the revision writes it (the base's where the operation is gone); absent for the API as a whole. */
  operation?: string;
  /** JSON pointers of what changed in each document (absent in the one that does not have it). */
  base?: string;
  revision?: string;
  /** A sentence a release manager understands. */
  sentence: string;
  /** Stable across runs and document layout: the rule, the operation and the logical place of the change. */
  fingerprint: string;
  /** Once proven against a deployment: does it still serve what the base contract promised? */
  deployment?: 'still-served' | 'fails-today';
  /** What the deployment answered, in one line, when proven. */
  deploymentDetail?: string;
  /** Consumers (pact files) whose interactions touch this change's operation. */
  consumers?: string[];
  /** Accepted by the ignore file until this day. */
  ignored?: { reason: string; expires: string };
}

export interface Compatibility {
  base: { source: string; version?: string };
  revision: { source: string; version?: string };
  breaking: boolean;
  /** Whether the breaking changes were sent to a deployment (false with `compat` alone). */
  proven: boolean;
  /** One line saying what was and was not proven. */
  provenNote: string;
  changes: Change[];
  counts: { breaking: number; warning: number; info: number; ignored: number };
  /** Ignore entries past their expiry (they ignore nothing and fail the gate). */
  expiredIgnores?: Array<{ entry: string; expires: string }>;
  /** The consumers' pacts checked against the revision (as `pact check` does), when pacts were given. */
  pacts?: ConsumerPactCheck;
}

/** The consumers' pact interactions held to the revision (and to the base, to tell a new break from an old one). */
export interface ConsumerPactCheck {
  /** Where the pacts came from: the sources given, and the Pact Broker's latest pact per consumer. */
  sources: string[];
  consumers: string[];
  checked: number;
  /** Interactions the revision no longer satisfies (they held against the base): they fail the gate. */
  broken: number;
  /** Each interaction that fails against the revision, with its mismatches; `alreadyFailing` when the base fails it too. */
  failures: Array<{
    consumer: string;
    provider: string;
    pact: string;
    interaction: string;
    /** The interaction's request, `METHOD /path` as the pact sends it; the revision's operation id where one matches. */
    request: string;
    operationId?: string;
    alreadyFailing: boolean;
    mismatches: Array<{ message: string; location?: string }>;
  }>;
}
