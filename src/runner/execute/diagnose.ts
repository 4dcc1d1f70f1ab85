/**
 * Configuration problems named as such, never blamed on the service:
 * - credentials: when the deployment answers the run's own authenticated calls with 401/403 across the
 *   board, the token is wrong (or lacks rights), not every operation broken. A preflight with the safe
 *   operations (GET without path parameters) stops the run before it starts; after the run, the positive
 *   cases are looked at again (a contract without such a GET).
 * - base URL: when every selected operation of a service answers like an unknown route, the base URL is
 *   probably wrong (a gateway without the service prefix, say): the message shows the URL and what it answered.
 * - caller IP: an answer carrying the profile's `auth.ipDeniedCode` says the deployment does not allow the
 *   address the run comes from; the preflight stops on it, and a case that meets it later is errored.
 * - a security scheme's credential: when every call that carried the run's own credential of a scheme was
 *   refused and none let through (CredentialAnswers, over the whole run), the operations that need it are
 *   untested with that reason, said once per scheme (the preflight cannot tell: it sends the token only).
 * Each one sets `stopped` on the results: the verdict is incomplete (exit 2) and the reports are written.
 */
import type { Dispatcher } from 'undici';
import { request } from '../http/undici.ts';
import type { CaseResult, Contract, Operation, OperationResult, RunResults } from '../model.ts';
import type { Profile } from '../description/profile.ts';
import { atPointer } from '../checks/types.ts';

const REJECTED = new Set([401, 403]);

/** "the deployment rejected the credentials (401 on 3 of 3 calls)" when every call answered 401/403. */
export function credentialsMessage(statuses: readonly number[]): string | undefined {
  if (statuses.length === 0 || !statuses.every((s) => REJECTED.has(s))) return undefined;
  const kinds = [...new Set(statuses)].sort().join('/');
  return `the deployment rejected the credentials (${kinds} on ${statuses.length} of ${statuses.length} calls): check the bearer token (CONFORMANCE_TOKEN or --token)`;
}

/**
 * The platform refused the caller's IP address (the profile's `auth.ipDeniedCode` in an error answer): where
 * the run comes from is not allowed, which says nothing about the operation. The reason, or undefined.
 */
export function ipDeniedReason(profile: Profile, status: number, json: unknown): string | undefined {
  const code = profile.auth.ipDeniedCode;
  if (code === undefined || status < 400 || atPointer(json, profile.errorEnvelope.codePointer) !== code) return undefined;
  return `the deployment refused the caller's IP address (${code}, status ${status}): run from an address it allows; nothing was judged`;
}

/** At most this much of a preflight answer is read (to find the IP-denied code in it). */
const PREFLIGHT_BODY_BYTES = 64 * 1024;

/** Safe operations without path parameters: calls any valid token must be let through. */
export function preflightOperations(contract: Contract, selected: readonly Operation[]): Operation[] {
  const services = new Set(selected.map((o) => o.service));
  return contract.operations.filter(
    (o) =>
      services.has(o.service) && o.secured && (o.method === 'GET' || o.method === 'HEAD') && !o.path.includes('{') && !o.parameters.some((p) => p.required && p.in !== 'header') &&
      // The preflight sends the bearer token only: an operation secured by another scheme (apiKey, basic) is left to the run.
      (o.auth ?? []).every((s) => s.kind === 'bearer'),
  );
}

/**
 * Sends each preflight operation once with the run's token; returns the credentials message when every one
 * was rejected with 401/403 (undefined when any got through, or there was nothing to send).
 */
export async function preflightCredentials(input: {
  operations: readonly Operation[];
  baseUrls: Record<string, string>;
  token: string;
  profile: Profile;
  timeoutMs: number;
  /** The run's dispatcher (proxy, TLS) and extra headers (the user's, the run id). */
  dispatcher?: Dispatcher;
  headers?: Record<string, string>;
}): Promise<string | undefined> {
  const statuses: number[] = [];
  for (const op of input.operations) {
    const base = input.baseUrls[op.service];
    if (!base) continue;
    try {
      const res = await request(`${base.replace(/\/+$/, '')}${op.path}`, {
        method: op.method,
        headers: { ...input.headers, accept: 'application/json', [input.profile.auth.header.toLowerCase()]: `Bearer ${input.token}` },
        ...(input.dispatcher ? { dispatcher: input.dispatcher } : {}),
        headersTimeout: input.timeoutMs,
        bodyTimeout: input.timeoutMs,
      });
      const body = await readCapped(res.body, PREFLIGHT_BODY_BYTES);
      const denied = res.statusCode >= 400 ? ipDeniedReason(input.profile, res.statusCode, parseJson(body)) : undefined;
      if (denied) return denied;
      statuses.push(res.statusCode);
    } catch {
      return undefined; // a network problem is the cases' to report, not a credentials problem
    }
  }
  return credentialsMessage(statuses);
}

/** The first `limit` bytes of a body as text; the rest is discarded unread. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The final status of each positive case that ran (its last exchange with a response). A passed case's summary
 * keeps no exchanges (report/assemble.ts compactCase): it was let through, whatever its status, and counts as such.
 */
function positiveStatuses(operations: readonly OperationResult[]): number[] {
  const statuses: number[] = [];
  for (const op of operations) {
    for (const c of op.cases) {
      if (c.kind !== 'positive' || c.outcome === 'skipped') continue;
      const status = c.exchanges.at(-1)?.response?.status ?? (c.outcome === 'passed' ? 200 : undefined);
      if (status !== undefined) statuses.push(status);
    }
  }
  return statuses;
}

/** The first presence probe of an operation: what the route answered. */
function presenceAnswer(op: OperationResult): string {
  const exchange = op.cases.find((c) => c.kind === 'presence')?.exchanges[0];
  if (!exchange?.response) return 'no answer';
  return `${exchange.response.status} to ${exchange.request.method} ${exchange.request.url}`;
}

/** The configuration problem the results show, if any (see the module comment). */
export function diagnoseResults(results: Pick<RunResults, 'operations' | 'target'>): string | undefined {
  const described = results.operations.filter((op) => op.method !== null && op.outcome !== 'not-described');
  const credentials = credentialsMessage(positiveStatuses(described));
  if (credentials && positiveStatuses(described).length >= 2) return credentials;
  for (const target of results.target.services) {
    const ops = described.filter((op) => op.service === target.id);
    const presence = (op: OperationResult, severity: 'error' | 'warning') => op.cases.some((c) => c.kind === 'presence' && c.findings.some((f) => f.check === 'operation-present' && f.severity === severity));
    // Missing, or answering like an unknown route where no record could prove otherwise (unverified).
    const unknown = (op: OperationResult) => presence(op, 'error') || presence(op, 'warning');
    if (ops.length >= 2 && ops.every(unknown) && ops.some((op) => presence(op, 'error'))) {
      const shown = ops.find((op) => presence(op, 'error')) as OperationResult;
      return `every operation of ${target.id} is missing: its base URL ${target.baseUrl} is probably wrong (it answered ${presenceAnswer(shown)} like an unknown route); pass the URL the service's paths hang off, e.g. https://gateway/${target.id}`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The run's own credential of a security scheme, refused

/** Answers that show nothing of a credential: the method, the media types or the input refused (possibly before it was looked at), a rate limit. */
const SAY_NOTHING = new Set([400, 405, 406, 408, 413, 414, 415, 422, 429, 431]);

/**
 * The operation's answer refuses the credential it was sent: a 401; a 403 where the operation documents 403 and
 * no 401 (its contract's answer to a bad credential). Any other 403 may be about what the caller may do, not who it
 * is: it counts neither way.
 */
export function refusesCredential(op: Pick<Operation, 'responses'>, status: number): boolean {
  if (status === 401) return true;
  if (status !== 403) return false;
  const documents = (s: string) => op.responses.some((r) => r.status === s);
  return documents('403') && !documents('401');
}

/** A security scheme whose credential the run sent and the deployment refused on every call that carried it. */
export interface RefusedCredential {
  scheme: string;
  /** The first operation (service, group, operationId order) that refused it, and how. */
  operationId: string;
  status: number;
  /** Where the credential came from: the scheme's own (--auth) or the run's token. */
  source: 'auth' | 'token';
  /** --token-command gives the token. */
  tokenCommand?: boolean;
}

/**
 * What the deployment answered the calls that carried the run's own credential of each security scheme (an
 * operation's own method, the run's credential, not the auth matrix's broken ones nor another identity's). A scheme
 * is refused when at least one such call was refused and none was let through: the decision is over every call
 * of the run, so it does not depend on which answered first. Answers that say nothing of a credential (see
 * SAY_NOTHING, and server errors) count neither way; any other answer lets it through, so one operation that
 * refuses a credential the others of its scheme take is that operation's defect, judged as such.
 */
export class CredentialAnswers {
  readonly #accepted = new Set<string>();
  /** Per scheme: the operations that refused it, with the statuses they refused it with. */
  readonly #refused = new Map<string, Map<string, Set<number>>>();

  note(op: Operation, schemes: readonly string[], status: number | undefined): void {
    if (status === undefined || schemes.length === 0) return;
    if (refusesCredential(op, status)) {
      for (const scheme of schemes) {
        let byOp = this.#refused.get(scheme);
        if (!byOp) this.#refused.set(scheme, (byOp = new Map()));
        let statuses = byOp.get(op.operationId);
        if (!statuses) byOp.set(op.operationId, (statuses = new Set()));
        statuses.add(status);
      }
      return;
    }
    if (status >= 500 || SAY_NOTHING.has(status) || status === 403) return;
    for (const scheme of schemes) this.#accepted.add(scheme);
  }

  /** The schemes refused everywhere, in name order, each with the first operation that refused it. */
  refused(operation: (operationId: string) => Operation | undefined, source: (scheme: string) => RefusedCredential['source'], tokenCommand: boolean): RefusedCredential[] {
    const out: RefusedCredential[] = [];
    for (const scheme of [...this.#refused.keys()].sort()) {
      if (this.#accepted.has(scheme)) continue;
      const byOp = this.#refused.get(scheme)!;
      // Report order (service, group, operationId), whichever answered first.
      const key = (id: string) => {
        const op = operation(id);
        return [op?.service ?? '', op?.group ?? '', id].join('\u0000');
      };
      const [first] = [...byOp.keys()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      const statuses = byOp.get(first!)!;
      const from = source(scheme);
      out.push({ scheme, operationId: first!, status: statuses.has(401) ? 401 : Math.min(...statuses), source: from, ...(from === 'token' && tokenCommand ? { tokenCommand: true } : {}) });
    }
    return out;
  }
}

/**
 * One line per refused scheme: which scheme, who refused it, and what to check (the value never shown), e.g.
 * `the credential for security scheme "api_key" was refused by listPets (401) and by every other call that carried
 * it: check what --auth api_key=<value> gives (CONFORMANCE_AUTH, or auth in the config file)`.
 */
export function refusedCredentialMessage(refused: RefusedCredential): string {
  const check =
    refused.source === 'auth'
      ? `check what --auth ${refused.scheme}=<value> gives (CONFORMANCE_AUTH, or auth in the config file)`
      : `check the token (CONFORMANCE_TOKEN or --token${refused.tokenCommand ? ', or what --token-command prints' : ''}), or give the scheme its own with --auth ${refused.scheme}=<value>`;
  return `the credential for security scheme "${refused.scheme}" was refused by ${refused.operationId} (${refused.status}) and by every other call that carried it: ${check}`;
}

/** Why a case of an operation that needs the refused credential is untested (the run's line says the rest). */
export function refusedCredentialReason(refused: Pick<RefusedCredential, 'scheme' | 'source'>): string {
  const check = refused.source === 'auth' ? `--auth ${refused.scheme}=<value>` : 'the token (CONFORMANCE_TOKEN or --token)';
  return `the run's credential for security scheme "${refused.scheme}" was refused on every call that carried it: check ${check}`;
}

/** Skips of answers the refused credential may have caused (the others, said by the plan, stay as they are). */
const ANSWER_SKIPS = new Set<string | undefined>(['setup-failed', 'unverified', 'missing']);

/**
 * The cases of the operations that need a refused credential, untested with why: every case that sent the run's
 * own credential (not the auth matrix's, whose calls carry none or a broken one on purpose, nor an access case's,
 * another identity's call) and ran, or was skipped for what an answer showed, is skipped with the reason and keeps
 * nothing of what it was judged (its findings blamed the service for a configuration problem). Errored cases stay
 * (the network's, not the credential's). Returns a new map; the cases are new objects (nothing of the spool's).
 */
export function untestedForRefusedCredentials(
  cases: ReadonlyMap<string, readonly CaseResult[]>,
  operations: readonly Operation[],
  refused: readonly RefusedCredential[],
): Map<string, CaseResult[]> {
  const out = new Map<string, CaseResult[]>([...cases].map(([id, list]) => [id, [...list]]));
  if (refused.length === 0) return out;
  const reasons = new Map(refused.map((r) => [r.scheme, refusedCredentialReason(r)]));
  for (const op of operations) {
    const scheme = (op.auth ?? []).find((s) => reasons.has(s.name));
    const list = out.get(op.operationId);
    if (!scheme || !list) continue;
    const reason = reasons.get(scheme.name)!;
    out.set(
      op.operationId,
      list.map((c) => {
        if (c.kind === 'auth' || c.kind === 'scenario' || c.kind === 'pact' || c.access !== undefined || c.outcome === 'errored') return c;
        if (c.outcome === 'skipped' && !ANSWER_SKIPS.has(c.skipKind)) return c;
        return {
          name: c.name,
          kind: c.kind,
          outcome: 'skipped',
          skipReason: reason,
          skipKind: 'credential-refused',
          durationMs: c.durationMs,
          checks: [],
          findings: [],
          exchanges: [],
          ...(c.startedAt !== undefined ? { startedAt: c.startedAt } : {}),
          ...(c.requests !== undefined ? { requests: c.requests } : {}),
          ...(c.requestsByLocation !== undefined ? { requestsByLocation: c.requestsByLocation } : {}),
        } satisfies CaseResult;
      }),
    );
  }
  return out;
}
