/**
 * The data that flows between the stages of the engine. Everything here is plain JSON-serialisable data:
 * operations come out of spec/, cases out of plan/, exchanges out of http/, findings out of checks/, and the
 * run results (results.json) are what every reporter renders from.
 */

export type JsonSchema = Record<string, unknown> | boolean;

/** QUERY (a safe method with a body, draft-ietf-httpbis-safe-method-w-body) is only sent as a method a contract does not document. */
export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS' | 'TRACE' | 'QUERY';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
  /** JSON pointer of the parameter inside its description file. */
  pointer: string;
  /** The parameter's documented example value, when it has one. */
  example?: unknown;
  /**
   * A query parameter declared with `allowEmptyValue: true`: `?name=` is a value the server must take. Without it
   * an empty value is not allowed by OpenAPI, and many servers read it as the parameter left out, so the tool
   * never counts on either reading (see plan/empty-values.ts).
   */
  allowEmptyValue?: true;
  /**
   * A parameter described by `content` instead of `schema`: its media type. A JSON one is sent as one JSON
   * text (e.g. `?filter={"where":{...}}`), its schema being that media type's.
   */
  contentType?: string;
  /**
   * A query array serialized as one value: `style: form, explode: false` joins its items with commas
   * (`?status=a,b`), spaceDelimited with spaces, pipeDelimited with pipes. Absent: one `name=item` pair per item.
   */
  joined?: ',' | ' ' | '|';
}

/** A security scheme the tool can send credentials for. */
export type AuthScheme =
  | { name: string; kind: 'bearer' | 'basic' }
  | { name: string; kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; parameter: string };

/** An OpenAPI link of a response: the target operation and where its parameters come from. */
export interface OperationLink {
  name: string;
  /** Status of the response that declares the link. */
  status: string;
  operationId?: string;
  method?: string;
  path?: string;
  /** Target parameter name -> runtime expression, e.g. "$response.body#/id". */
  parameters: Record<string, string>;
}

export interface ResponseSpec {
  /** HTTP status as a string ("200", "4XX") or "default". */
  status: string;
  /** Declared media types; empty when the response declares no content (body undeclared). */
  contentTypes: string[];
  /** Schema of the JSON media type, when one is declared (dereferenced; may be a cyclic graph). */
  schema?: JsonSchema;
  /**
   * The same schema by reference into its description's validation document ("<document id>#<pointer>"),
   * what response validation compiles (recursive schemas stay finite). Absent for hand-built operations.
   */
  schemaRef?: string;
  pointer: string;
  /**
   * Each declared media type with its own schema, where they differ from the JSON one: set when a media type
   * other than JSON declares a schema (a text/plain string, a text/html page), so that a body is judged by the
   * media type it is answered in.
   */
  media?: Array<{ type: string; schema?: JsonSchema; schemaRef?: string }>;
  /** The headers the response declares (`required`, and the schema a present one's value must match). */
  headers?: Array<{ name: string; required: boolean; schema: JsonSchema; pointer: string; contentType?: string }>;
}

export interface RequestBodySpec {
  required: boolean;
  /** The range this media type stands for (`*\/*`, `text/*`): the contract declares the range, not this type. */
  range?: string;
  /** The contract says whether a body is required is not shown (`x-required: not shown` on the request body). */
  requiredNotShown?: true;
  contentType: string;
  schema: JsonSchema;
  pointer: string;
  /** The media type's own examples of the body (`example`, each of `examples`' values), where it gives any. */
  examples?: unknown[];
}

/** One operation of a loaded description, dereferenced and normalised to JSON Schema 2020-12. */
export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** Path template relative to the server base, e.g. "/orders/{id}". */
  path: string;
  /** Resource group: the first path segment with its slash ("/orders"), or the first tag. */
  group: string;
  /** Id of the service (server) the operation belongs to, e.g. "orders". */
  service: string;
  /** Description file the operation comes from (as given by the user). */
  specFile: string;
  /** JSON pointer of the operation object inside specFile, e.g. "/paths/~1orders/post". */
  pointer: string;
  parameters: ParameterSpec[];
  requestBody?: RequestBodySpec;
  /** Every media type the request body declares (JSON first); requestBody is the first of them. */
  requestBodies?: RequestBodySpec[];
  responses: ResponseSpec[];
  /** The security schemes whose credentials the tool sends (empty or absent: the profile's bearer header). */
  auth?: AuthScheme[];
  /** OpenAPI links of the responses. */
  links?: OperationLink[];
  /** True when a security requirement applies (the operation must reject calls without credentials). */
  secured: boolean;
  /**
   * True when the operation declares a security requirement with a scheme (required, or beside `{}` where a caller
   * may also come without credentials): it is sent credentials. False: it declares none (or only `{}`), and is
   * sent none unless its profile says credentials go with every operation (auth.everyOperation).
   */
  credentialed?: boolean;
  /** Vendor extensions of the operation object (x-*), kept verbatim. */
  extensions: Record<string, unknown>;
  /** The operation object's tags. */
  tags?: string[];
  /**
   * OAuth2 / OpenID Connect scopes a caller needs: one list per security requirement that names scopes (any one
   * list suffices). Absent: the contract names no scope for the operation.
   */
  scopes?: string[][];
  /**
   * `x-ownership: per-identity` on the operation or its path item: the records of the path belong to the identity
   * that created them (another identity may not read, change or delete them).
   */
  ownership?: 'per-identity';
}

export interface ServiceSpec {
  /** Stable id of the service: x-service-id, else the last path segment of the server URL. */
  id: string;
  file: string;
  title: string;
  version: string;
  openapi: string;
  /** Server URL template from the description, e.g. "https://{gateway}/orders". */
  serverTemplate: string;
  /** Named component schemas, dereferenced. */
  schemas: Record<string, JsonSchema>;
  /** The description as response validation reads it: refs kept, schemas in 2020-12 under its own version. */
  validationDocument?: { id: string; document: Record<string, unknown> };
  /** `x-platform` of the description's info (or root): the platform whose profile applies to it. */
  platform?: string;
  /** What loading the description noticed and let through (a component name OpenAPI's rule refuses), one line each. */
  warnings?: string[];
}

export interface Contract {
  services: ServiceSpec[];
  operations: Operation[];
}

// ---------------------------------------------------------------------------------------------------------
// Exchanges (what was sent and what came back), always redacted before they leave http/.

export interface RecordedRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  /** Body as sent (text), absent when none. */
  body?: string;
  /** 'latin1': the body is bytes, one per character of `body` (a body that is not UTF-8). */
  bodyEncoding?: 'latin1';
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** Body text, cut at the body cap. */
  body: string;
  /** Parsed JSON when the body parsed as JSON. */
  json?: unknown;
  /** True when the body was cut at the body cap. */
  truncated: boolean;
  /** Full size in bytes as received (before truncation), after content decoding. */
  size: number;
  /** The body bytes are not valid UTF-8 (the text holds replacement characters). */
  invalidUtf8?: boolean;
  /** Why a body declared as JSON (or that looks like JSON) could not be used as JSON: invalid, nested too deep. */
  jsonError?: string;
  /**
   * A 204 or 304 answer (no content, whatever its header says) that more bytes followed in the same read: the
   * client took them for the start of another answer and closed the connection (http/exchange.ts).
   */
  bytesAfterEnd?: boolean;
}

/** How `jsonError` begins for a body that is JSON but nested too deep to judge (it parsed: it is well-formed). */
export const TOO_DEEP = 'the JSON body is nested more than';
/** Deeper JSON than this is not kept as JSON (validation and reports recurse over it). */
export const MAX_JSON_DEPTH = 512;

/**
 * 'dropped': the server closed the connection without an answer to this request on every attempt (fresh
 * connections among them) while it answered another request at once: the service's failure on this input (a
 * handler that crashed), judged as a server error. Every other kind is the network's or the tool's.
 */
export type TransportErrorKind = 'timeout' | 'connection' | 'dropped' | 'body-too-large' | 'other';

export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Set when no response could be read: a tool or network problem, never the service's fault ('timeout' and 'dropped' excepted). */
  error?: { kind: TransportErrorKind; message: string };
  durationMs: number;
  /** Re-sends before this answer (network errors on idempotent calls, 429 back-off, a refreshed token). */
  retries?: Array<{ attempt: number; reason: string; waitedMs: number }>;
}

// ---------------------------------------------------------------------------------------------------------
// Findings

export type CheckId =
  | 'not-a-server-error'
  | 'status-code-conformance'
  | 'content-type-conformance'
  | 'response-headers-conformance'
  | 'response-schema-conformance'
  | 'error-envelope-conformance'
  | 'create-shape'
  | 'auth-enforced'
  | 'negative-data-rejected'
  | 'positive-data-accepted'
  | 'use-after-delete'
  | 'update-persisted'
  | 'operation-present'
  | 'property-casing'
  | 'created-resource-readable'
  | 'ownership'
  | 'json-wellformed'
  | 'success-not-error-envelope'
  | 'secret-not-exposed'
  | 'semantic-expectation'
  | 'response-timeout'
  | 'response-body-readable'
  | 'write-only-not-returned'
  | 'unsupported-method'
  | 'object-access-across-identities'
  | 'function-access-without-scope'
  | 'stack-trace-not-exposed'
  | 'no-content-no-body'
  | 'hidden-endpoint'
  | 'connection-dropped'
  | 'failed-create-no-side-effects'
  | 'mass-assignment'
  | 'credential-recognised'
  | 'put-idempotent'
  | 'location-serves-record';

export type Severity = 'error' | 'warning' | 'info';

export interface SchemaErrorDetail {
  instancePath: string;
  schemaPath: string;
  message: string;
  /** The schema the failing keyword belongs to, compacted (e.g. { type: 'boolean' }). */
  expected?: unknown;
  /** A `required` keyword: the property the object lacks (ajv's params.missingProperty; the instance path is the object's). */
  missingProperty?: string;
  /** An `additionalProperties` keyword: the property the object may not have (ajv's params.additionalProperty). */
  additionalProperty?: string;
}

export interface Finding {
  check: CheckId;
  severity: Severity;
  operationId: string;
  method: HttpMethod;
  path: string;
  /** Plain message: what is wrong, in one sentence. */
  message: string;
  expected?: unknown;
  actual?: unknown;
  /** Where in the contract the expectation comes from: "<file>#<json pointer>". */
  specLocation?: string;
  schemaErrors?: SchemaErrorDetail[];
  /** Set by the gate policy when a waiver covers this finding. */
  waived?: { reason: string; expires: string };
  /**
   * How many exchanges of the case showed this same defect (operation × check × status × schema location), when
   * more than one: the finding is shown once, with the smallest request that shows it.
   */
  count?: number;
  /**
   * An input of the lenient tier (plan/input-tiers.ts) was accepted: a warning the reports count apart as "accepted
   * leniently" (an error instead, without this mark, where the profile declares strictInput).
   */
  lenient?: true;
  /** The input class of the request a negative-data-rejected finding is about. */
  inputClass?: string;
  /**
   * What the coverage request that broke the server, or whose valid variation was refused, varied ("body.name",
   * "path.id"): each such part is a finding of its own, so one does not hide another.
   */
  varied?: string;
  /**
   * The request that showed it (the smallest, where many did): what identifies the finding when its exchanges are
   * left out of the reports. `status` is absent for a request that got no answer.
   */
  request?: { method: HttpMethod; url: string; status?: number };
  /**
   * The curl line of that request: the one exchange whose answer this finding states (its status, media type and
   * body), never another's of its case or group. Absent where no exchange of the run shows the finding (a
   * scenario's assertion), and in results.json where it is the case's own `curl` line: the case's is then the one.
   */
  curl?: string;
  /**
   * That request names a record the run made first (deleted since, where the run could): its curl line alone no
   * longer answers as it did; the case's reproduction script makes the record first where the finding is the one
   * it reproduces (its first error).
   */
  needsRecord?: true;
  /**
   * Folded: the same finding (same check, status, schema location and cause) shown in full in the earlier case
   * named here, whose count includes this one; its message still describes its own evidence.
   */
  sameAs?: string;
  /**
   * The Web Fuzzing Commons fault category an error of this check proves (checks/fault-codes.ts: 100 a server
   * error or crash, 101 an answer off its schema, …, 210 a hidden endpoint); absent for warnings and for checks
   * WFC has no category for.
   */
  faultCode?: number;
}

// ---------------------------------------------------------------------------------------------------------
// Results (results.json): the single source every reporter renders from.

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
