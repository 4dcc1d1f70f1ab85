/** What a run is given (the CLI's options, src/runner/cli/run-options.ts) and what it ends with. */
import type { Identity } from '../execute/identities.ts';
import type { ClientOptions } from '../http/client-options.ts';
import type { RunResults } from '../model.ts';
import type { Pack } from '../pack.ts';
import type { Reporter } from '../report/reporter.ts';

export interface RunOptions {
  specs: string[];
  /** The packs the run may draw on (src/runner/pack.ts): only those whose services the contract holds apply. */
  packs?: readonly Pack[];
  /** Profile file or 'generic' (default: the profile of the pack that applies, else the generic one). */
  profile?: string;
  /** Examples, catalog, waivers (default: the applying pack's, else none). */
  examples?: string;
  catalog?: string;
  waivers?: string;
  /** --base-url: the contract's only service, else the applying pack's primary one, else the contract's first. */
  baseUrl?: string;
  /** Base URL per service id. No base URL at all: the applying pack's reference deployment. */
  servers: Record<string, string>;
  token?: string;
  /** Credentials by security scheme name (--auth NAME=value): an apiKey's key, basic's user:password, a bearer token. */
  auth?: Record<string, string>;
  /** Other callers (and `default`: what the run's own credential holds); a second identity turns on the access checks. */
  identities?: Identity[];
  /** --auth-from: the operation that answers the run's token (a login, a registration), called once at the start, and its body. */
  authFrom?: { operation: string; body?: string };
  timeoutMs: number;
  /** Bytes of each answer read and judged (--max-body-size; default 1 MiB). */
  maxBodyBytes?: number;
  concurrency: number;
  include: string[];
  exclude: string[];
  readOnly: boolean;
  allowIrreversible: boolean;
  otpSourceUrl?: string;
  out: string;
  seed: number;
  maxExamples?: number;
  fuzzExamples?: number;
  /** Sequences of the stateful phase per operation (default: 3, fewer past 3,000 in a run, at least 1). */
  sequences?: number;
  shard?: { index: number; count: number };
  failOn: 'error' | 'warning';
  /** --fail-on untested: an untested operation fails the run. */
  failOnUntested?: boolean;
  quiet: boolean;
  deploymentSpec?: string;
  /** results.json of an earlier run (or its directory): fail only on what is new against it. */
  baseline?: string;
  /** What the contract changes since the base contract (`--base-contract`), proven; written into the results. */
  compatibility?: import('../compat/types.ts').Compatibility;
  /** Keep the exchanges of passed cases in the reports (default: a passed case keeps only its summary). */
  keepPassedExchanges?: boolean;
  /** Headers, proxy, TLS, retries, rate limit, token command, run id (see http/client-options.ts). */
  client?: ClientOptions;
  /** Unique id of the run, sent with every request. */
  runId?: string;
  /** Stop running cases once this many operations have failed. */
  maxFailures?: number;
  /** Directories of the user's own scenario suites, run with the bundled ones. */
  suites?: string[];
  /** Who hears of the run: progress, notices, the final results (report/reporter.ts), in order. */
  reporters?: Reporter[];
  /** Aborted: the run stops starting cases, cleans up and reports what was measured (interrupted). */
  signal?: AbortSignal;
}

export interface RunOutcome {
  exitCode: 0 | 1 | 2;
  /**
   * The final results, as the reporters had them: the curl lines and reproduction scripts of the generated cases
   * were on disk (the reporters read them back, report/case-spool.ts) and are gone with the spool file.
   */
  results?: RunResults;
  message?: string;
}

