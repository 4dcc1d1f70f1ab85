/** Results (results.json): the single source every reporter renders from. */
import type { HttpMethod } from './contract.ts';
import type { Exchange } from './exchange.ts';
import type { CheckId, Finding } from './findings.ts';

/**
 * untested: the operation's positive case could not run (irreversible and not allowed, read-only, no
 * producer, setup failed); flaky: identical calls disagreed (fails the run like failed).
 */
export type Outcome = 'passed' | 'failed' | 'missing' | 'flaky' | 'errored' | 'untested' | 'skipped' | 'not-described';
export type CaseOutcome = 'passed' | 'failed' | 'missing' | 'flaky' | 'errored' | 'skipped';
export type CheckStatus = 'passed' | 'failed' | 'warning' | 'waived' | 'skipped';

/** setup: the answers an operation gave to calls other cases made of it (creates, read-backs, clean-up). */
export type CaseKind = 'positive' | 'auth' | 'negative' | 'lifecycle' | 'presence' | 'coverage' | 'scenario' | 'pact' | 'setup';

/**
 * Where the input a request varies is (plan/input-location.ts): a path, query, header or cookie parameter, the
 * body, or none (the plain request, a credential, a method, several inputs at once, a record made first).
 */
export type InputLocation = 'path' | 'query' | 'header' | 'cookie' | 'body' | 'none';
/** Requests per input location (a location without any is left out). */
export type LocationCounts = Partial<Record<InputLocation, number>>;

export interface CheckResult {
  id: CheckId;
  status: CheckStatus;
}

/** Why a case did not run, as a kind (reports group and explain by it); the reason text says what happened. */
export type SkipKind =
  | 'read-only'
  | 'irreversible'
  | 'otp-source'
  | 'no-producer'
  | 'interrupted'
  | 'missing'
  | 'unverified'
  | 'setup-failed'
  | 'no-request'
  | 'max-failures'
  | 'timed-out'
  | 'target-down'
  /** The deployment refused the run's own credential of a security scheme on every call that carried it. */
  | 'credential-refused'
  | 'not-applicable';

export interface CaseResult {
  /** Stable case name, e.g. "positive", "auth: no token", "negative: missing body field code". */
  name: string;
  kind: CaseKind;
  outcome: CaseOutcome;
  skipReason?: string;
  skipKind?: SkipKind;
  /** Message of a tool or network error (outcome errored). */
  errorMessage?: string;
  /** Outcome flaky: identical attempts of the case disagreed; how many attempts were made and how many failed. */
  flaky?: { attempts: number; failed: number };
  durationMs: number;
  checks: CheckResult[];
  findings: Finding[];
  /** Redacted exchanges of this case, in the order they were sent. */
  exchanges: Exchange[];
  /**
   * curl command reproducing the exchange of the case's first error (else of its first finding, else its last
   * exchange), token as $CONFORMANCE_TOKEN. Each finding has its own exchange's (Finding.curl).
   */
  curl?: string;
  /**
   * A bash script reproducing the whole chain when the case needed setup calls: the creates (ids captured
   * from their answers), the call, then the clean-up; token from $CONFORMANCE_TOKEN.
   */
  reproduction?: string;
  /** True when one of its requests had to be sent again (see the exchanges' retries). */
  retried?: boolean;
  /** When the case started (performance.now(), in this process only): its operation's wall time is read from it. */
  startedAt?: number;
  /** Requests the case sent (in this process only; summed into its operation's `requests`). */
  requests?: number;
  /**
   * How many exchanges of this failing case the reports leave out: its failure (same check, same message) was
   * already shown with its evidence often enough. The findings and the curl line stay.
   */
  omittedExchanges?: number;
  /** An access case (--identity): who called, and what each caller got (the report's access table). */
  access?: AccessRecord;
  /** What the case's setup did that the reader should know (a record made with another body than the one asked), one line each. */
  notes?: string[];
  /** Its requests by the location of the input each varies (counted with `requests`; not stored per case). */
  requestsByLocation?: LocationCounts;
}

/** What an access case saw: another identity's call, and the owner's own where it made one. */
export interface AccessRecord {
  /** 'object': another identity's call on a record the run created; 'function': a call without the scope or role. */
  kind: 'object' | 'function';
  identity: string;
  /** The status the identity got (absent: no answer). */
  status?: number;
  /** The identity whose record it is, and the status its own call got. */
  owner?: string;
  ownerStatus?: number;
  /** The records are declared owned per identity (x-ownership, the profile): the check judges; else only reported. */
  owned?: boolean;
  /** What the identity got for a record that does not exist (asked when it got 403). */
  unknownRecordStatus?: number;
  /** What the identity lacks for the operation. */
  lacking?: { scopes?: string[][]; roles?: string[] };
}

/** The access table: per operation and kind of access case, the status each identity got. */
export interface AccessTable {
  identities: string[];
  rows: Array<{
    operationId: string;
    method: string;
    path: string;
    kind: AccessRecord['kind'];
    owned?: boolean;
    /** Status per identity (null: no answer). */
    statuses: Record<string, number | null>;
    /** error / warning: a finding of the access checks; allowed / refused: what the other identity got; skipped. */
    verdict?: 'error' | 'warning' | 'allowed' | 'refused' | 'skipped';
    lacking?: AccessRecord['lacking'];
  }>;
}

export interface OperationResult {
  operationId: string;
  method: HttpMethod | null;
  path: string | null;
  group: string;
  service: string;
  outcome: Outcome;
  /** For not-described, untested and skipped operations: why. */
  reason?: string;
  /** The kinds of case that actually ran (were not skipped), in canonical order; derived. */
  ran?: CaseKind[];
  /**
   * Wall time from the operation's first request to its last answer (its cases run concurrently, so never the sum
   * of their times, never more than the run).
   */
  durationMs: number;
  /** Requests the operation's cases sent (records made for them and read-backs included). */
  requests?: number;
  /** Those requests by the location of the input each varies (plan/input-location.ts); derived from the cases, in memory only (results.json keeps the run's sum). */
  requestsByLocation?: LocationCounts;
  cases: CaseResult[];
  /**
   * Checks that passed, counted over the operation's cases: { check id: cases it passed in }. Set when the
   * results were read from a results.json of schemaVersion 2, whose cases list only the checks that did not pass.
   */
  passedChecks?: Record<string, number>;
}

export interface CoverageSummary {
  /** All operations the catalog counts (described or not). */
  catalogTotal: number;
  described: number;
  /** Described operations with at least one case that was not skipped in this run. */
  tested: number;
  notDescribed: number;
}

export interface RunResults {
  /** What the contract changes since the base contract (`run --base-contract`), proven against the deployment. */
  compatibility?: import('../compat/types.ts').Compatibility;
  /** 2 as written by this version (report/results-format.ts); 1 when read from an older results.json. */
  schemaVersion: 1 | 2;
  tool: { name: string; version: string };
  /** `hash`: sha256 over the contract files' contents (merge refuses shards of different contracts). */
  contract: { title: string; version: string; files: string[]; hash?: string };
  target: { embedded: boolean; services: Array<{ id: string; baseUrl: string }> };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /**
   * conformant: exit 0; not-conformant: exit 1; incomplete (exit 2): the run was interrupted, stopped on a
   * configuration problem, or an operation errored. Derived by report/outcomes.ts, the same everywhere.
   */
  verdict: 'conformant' | 'not-conformant' | 'incomplete';
  /** One line saying what the verdict means, e.g. "conformant for 9 of 15 operations; 6 untested: ..."; derived. */
  verdictLine?: string;
  interrupted: boolean;
  /** Set when the run stopped early on a configuration problem (e.g. rejected credentials): what it was. */
  stopped?: string;
  failOn: 'error' | 'warning';
  /** --fail-on untested: an untested operation fails the run (a gate that demands full coverage). */
  failOnUntested?: boolean;
  seed: number;
  shard?: { index: number; count: number };
  coverage: CoverageSummary;
  counts: Record<Outcome, number>;
  /**
   * Inputs of the lenient tier the deployment accepted (plan/input-tiers.ts): the cases that showed one (each shown
   * with its smallest request), the requests, the operations; derived, absent when none. Warnings, counted apart from the others.
   */
  acceptedLeniently?: { cases: number; requests: number; operations: number };
  /** The run's requests by the location of the input each varies, summed over the operations; derived, absent when none counted. */
  requestsByLocation?: LocationCounts;
  operations: OperationResult[];
  /** Who could do what (--identity): derived from the access cases by report/outcomes.ts. */
  access?: AccessTable;
  /** Operations the deployment's own description lists that the contract lacks, and the reverse. */
  deploymentDiff?: { extra: Array<{ method: string; path: string; operationId?: string }>; lacking: string[] };
  /** Pact interactions, when the run verified or checked pacts. */
  pact?: { mode: 'verify' | 'check'; interactions: PactInteractionResult[] };
  /** Waivers that expired (each fails the run). */
  expiredWaivers: Array<{ operationId: string; check: string; reason: string; expires: string }>;
  /** With --baseline: the failures that are new, fixed and unchanged against an earlier run. */
  baseline?: BaselineComparison;
  /** Records the run created and could not delete again (a note, never a finding against an operation). */
  leftBehind?: LeftBehindRecord[];
  /**
   * The deployment stopped answering mid-run (it refused connections after it had answered): the deployment's
   * defect, the run not conformant; the cases after it were not run. What it last answered, and the requests cut
   * in flight then (the likely cause among them), with their curl lines.
   */
  targetDown?: TargetDown;
  /**
   * The catalog's groups of operations the contract describes no path of (known by their path prefix and count
   * only), each asked at its prefix as a presence probe asks a route: whether the deployment serves it. A group
   * served is a warning (a surface no client of the contract knows of), never a failure.
   */
  catalogGroups?: CatalogGroups;
}

export interface CatalogGroups {
  /** How many groups were asked; `served` of them answered unlike an unknown route. */
  asked: number;
  served: number;
  groups: CatalogGroupProbe[];
}

export interface CatalogGroupProbe {
  prefix: string;
  service: string;
  /** The operations the catalog counts in the group. */
  count: number;
  /** true: answered unlike an unknown route; false: like one; absent: no answer (what went wrong in `message`). */
  served?: boolean;
  status?: number;
  /** What the probe showed, in one sentence; and its curl line (the token as $CONFORMANCE_TOKEN). */
  message: string;
  curl: string;
}

export interface TargetDown {
  service: string;
  baseUrl: string;
  /** The last request the deployment answered. */
  after?: { method: HttpMethod; url: string; status: number; curl: string };
  /** The requests whose connection broke after that answer (cut in flight: the likely cause is among them). */
  inFlight?: Array<{ method: HttpMethod; url: string; curl: string; error: string }>;
  message: string;
}

/**
 * A record the run created and did not delete: which create made it, where, and why it is still there. Records
 * whose create named no id are one entry per operation and reason with their `count`.
 */
export interface LeftBehindRecord {
  operationId: string;
  method: HttpMethod;
  path: string;
  /** The URL of the call that created it (without its query); of the first such call, for counted records. */
  createdBy: string;
  id?: string;
  reason: string;
  /** This many records (when more than one) that no id names, left by this operation's creates for this reason. */
  count?: number;
}

export interface BaselineEntry {
  /** "<service> <operationId> › <case> › <check>": what identifies a failure across runs. */
  key: string;
  operationId: string;
  caseName: string;
  check: string;
  /** The message of this run's failure (of the baseline's, for fixed ones). */
  message: string;
}

export interface BaselineComparison {
  /** The baseline file as the user gave it. */
  file: string;
  /** When the baseline run started. */
  startedAt: string;
  new: BaselineEntry[];
  fixed: BaselineEntry[];
  unchanged: BaselineEntry[];
}

export interface PactInteractionResult {
  consumer: string;
  provider: string;
  /** Pact file (path or URL) the interaction comes from. */
  pactFile: string;
  description: string;
  providerStates: string[];
  /** Contract operation the interaction's method and path map to, when one does. */
  operationId?: string;
  outcome: 'passed' | 'failed' | 'errored' | 'skipped';
  durationMs: number;
  /** Each mismatch or incompatibility, with the contract or pact location it concerns. */
  mismatches: Array<{ message: string; location?: string }>;
}
