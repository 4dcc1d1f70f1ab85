/**
 * The Location of a create's 201 followed, once per created-readable case (location-serves-record): resolved against
 * the request URL, sent as a GET with the credentials a read of the record carries, on the target's origin only.
 * Where its path, under the target's base path, is a documented read's, the answer is judged as that read's too;
 * otherwise only the check judges it. The same URL a read of the chain already sent is not sent again.
 */
import type { LocationContext, RelatedRead } from '../checks/types.ts';
import type { Exchange, Operation } from '../model.ts';
import { matchOperation } from '../pact/match-operation.ts';
import type { CaseRun } from './case-run.ts';
import type { Answered } from './judge.ts';
import type { PhaseContext } from './phases/host.ts';

/** The base URL's path without its trailing slash ('' at the root). */
function basePath(base: URL): string {
  return base.pathname.replace(/\/+$/, '');
}

/** The path under the base path, or undefined when the URL is not under it. */
function underBase(url: URL, base: string): string | undefined {
  if (base === '') return url.pathname;
  if (url.pathname === base) return '/';
  return url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : undefined;
}

/** The documented GET a path under the base path names, and its path values. */
function readAt(session: PhaseContext, service: string, path: string): { operation: Operation; pathParams: Record<string, string> } | undefined {
  const match = matchOperation(session.contract, service, 'GET', path);
  return match && match.operation.service === service ? { operation: match.operation, pathParams: match.pathParams } : undefined;
}

/** The create's 201 Location followed; undefined where it has none, or the GET got no answer. */
export async function followLocation(session: PhaseContext, run: CaseRun, action: Answered, reads: RelatedRead[], createdId: string | undefined): Promise<LocationContext | undefined> {
  const header = action.response.headers['location'];
  if (action.response.status !== 201 || !header) return undefined;
  let url: URL;
  let base: URL;
  try {
    url = new URL(header, action.request.url);
    base = new URL(session.config.baseUrls[run.op.service] ?? action.request.url);
  } catch {
    return undefined;
  }
  const about = { header, url: url.toString(), ...(createdId !== undefined ? { createdId } : {}) };
  if (url.origin !== base.origin) return about;
  const prefix = basePath(base);
  const path = underBase(url, prefix);
  const documented = path === undefined ? undefined : readAt(session, run.op.service, path);
  // Without the base path, the Location names a documented read only with it put back: what a gateway's client meets.
  const missingBase = path === undefined && prefix !== '' && readAt(session, run.op.service, url.pathname) ? prefix : undefined;
  const exchange = reads.find((r) => r.exchange.request.url === url.toString())?.exchange ?? (await locationGet(session, run, url.toString(), documented?.operation, reads));
  if (!exchange?.response) return undefined;
  const names = documented ? { names: { operationId: documented.operation.operationId, pathParams: documented.pathParams } } : {};
  return { ...about, exchange: exchange as Answered, ...(missingBase ? { missingBase } : {}), ...names };
}

/**
 * The GET of the Location: as the documented read it names (judged as that read's answer), else with the credentials
 * of the record's own read, judged by the check alone.
 */
async function locationGet(session: PhaseContext, run: CaseRun, url: string, documented: Operation | undefined, reads: RelatedRead[]): Promise<Exchange | undefined> {
  if (documented) return run.send(documented, { url });
  const reader = reads.find((r) => r.role === 'item')?.operation ?? reads[0]?.operation;
  if (!reader) return undefined;
  const exchange = await session.caller.call(reader, { url });
  run.keep(exchange);
  return exchange;
}
