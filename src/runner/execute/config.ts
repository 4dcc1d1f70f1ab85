import type { Identity } from './identities.ts';
import type { ClientOptions } from '../http/client-options.ts';

/** Everything a conformance run needs, passed from the CLI to the suites (vitest `provide`). Plain JSON. */
export interface RunConfig {
  contractFiles: string[];
  profileFile: string;
  examplesFile?: string;
  /** Fields of the OTP source's JSON answer holding the one-time password (from the pack that applies). */
  otpFields?: readonly string[];
  /** Base URL per service id of the contract. */
  baseUrls: Record<string, string>;
  /** The bearer token ('' when no selected operation needs one). Lives only in memory; every recorded exchange is redacted. */
  token: string;
  /** Credentials by security scheme name (components.securitySchemes): an apiKey's key, basic's user:password, a bearer token. */
  auth?: Record<string, string>;
  /** Other callers the run holds credentials for, and what the run's own holds (`default`). */
  identities?: Identity[];
  /**
   * The run's token came from an answer of the API (--auth-from): where that answer held it (a write of the run
   * answering a new token there renews it), and the values sent for it (a password) that reports must not show.
   */
  obtained?: { path?: string[]; secrets: string[] };
  timeoutMs: number;
  concurrency: number;
  bodyCapBytes: number;
  readOnly: boolean;
  allowIrreversible: boolean;
  /** URL template with {transactionId} that answers the one-time password of a transaction. */
  otpSourceUrl?: string;
  seed: number;
  /** Requests of the coverage phase per operation (0 turns the phase off). */
  maxExamples?: number;
  /** Random requests of the fuzzing phase per operation (0 turns the phase off). */
  fuzzExamples?: number;
  /** Sequences of the stateful phase per operation (0 turns them off). */
  sequences?: number;
  include: string[];
  exclude: string[];
  shard?: { index: number; count: number };
  /** Unique to this run: {{unique}} in examples. */
  runId: string;
  /** Headers, proxy, TLS, retries, rate limit, token command (default: none of them). */
  client?: ClientOptions;
  /** Stop running cases once this many operations have failed. */
  maxFailures?: number;
}
