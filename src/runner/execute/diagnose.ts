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
 * Either one sets `stopped` on the results: the verdict is incomplete (exit 2) and the reports are written.
 */
import type { Dispatcher } from 'undici';
import { request } from '../http/undici.ts';
import type { Contract, Operation, OperationResult, RunResults } from '../model.ts';
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

/** The final status of each positive case that ran (its last exchange with a response). */
function positiveStatuses(operations: readonly OperationResult[]): number[] {
  const statuses: number[] = [];
  for (const op of operations) {
    for (const c of op.cases) {
      if (c.kind !== 'positive' || c.outcome === 'skipped') continue;
      const status = c.exchanges.at(-1)?.response?.status;
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
