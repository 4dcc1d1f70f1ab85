/** Messages between verifyPacts (parent) and verify-worker.ts (child process), sent over the IPC channel. */

export type VerifierLogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface BrokerSource {
  url: string;
  token?: string;
  username?: string;
  password?: string;
  consumerVersionSelectors?: unknown[];
  enablePending?: boolean;
  includeWipPactsSince?: string;
  publishVerificationResult?: boolean;
  providerVersion?: string;
  providerVersionBranch?: string;
}

/** One verifier run: a single pact (file path or URL), or the broker's pacts for the provider. */
export interface WorkerRun {
  id: string;
  pactUrl?: string;
  broker?: BrokerSource;
  /** With a broker source: fail when the broker has no pacts for the provider. */
  failIfNoPactsFound?: boolean;
}

export interface WorkerRequest {
  provider: string;
  baseUrl: string;
  /** Bearer token for the provider. Sent over IPC only (never argv or the environment). */
  token: string;
  timeoutMs: number;
  logLevel: VerifierLogLevel;
  /** The provider-state change endpoint (Pact convention) every state setup and teardown goes to. */
  stateChangeUrl: string;
  runs: WorkerRun[];
  /** Creates whose records are deleted at the interaction's teardown (derived from the contract, plan/undo.ts). */
  createdRecords: CreatedRecordRule[];
  /** DELETE answers that mean "already gone", besides 404 and 410 (the pack's). */
  goneAnswers: Array<{ status: number; code?: string }>;
}

/** A create (method, path pattern) and the DELETE that removes what it created. */
export interface CreatedRecordRule {
  method: string;
  /** Regular expression source matching the create's path (relative to the base URL), one group per parameter. */
  pattern: string;
  createPath: string;
  deletePath: string;
  /** The DELETE's path parameter that takes the created id. */
  idParam: string;
}

/** A provider-state change that did not succeed. */
export interface StateFailure {
  /** The run (WorkerRun.id) during which it happened. */
  runId: string;
  state: string;
  action: 'setup' | 'teardown';
  message: string;
}

export interface WorkerRunResult {
  id: string;
  /** The verifier's JSON report (pactffi_verifier_json), when it produced one. */
  json?: string;
  /** Why the run produced no report (invalid arguments, a crash, ...). */
  error?: string;
  durationMs: number;
}

export interface WorkerResponse {
  runs: WorkerRunResult[];
  stateFailures: StateFailure[];
  /** Records the run created that could not be deleted again. */
  cleanupProblems: string[];
}
