/**
 * The Accept header of an operation's requests, from the media types its responses declare: every request asks
 * for what the contract says the operation answers in (a JSON:API or a text/plain operation is not asked for
 * application/json, which a negotiating server refuses with 406), an operation that declares none for anything.
 * The coverage phase also asks for each declared type alone, and once for a type nobody declared.
 */
import type { Operation } from '../model.ts';

/** A media type without its parameters, lower-case. */
function bare(type: string): string {
  return (type.split(';')[0] ?? '').trim().toLowerCase();
}

/** Declared response media types: those of successful answers, then the others; each once, without parameters. */
export function responseMediaTypes(op: Operation): { success: string[]; other: string[] } {
  const success = new Set<string>();
  const other = new Set<string>();
  for (const r of op.responses) for (const t of r.contentTypes) (/^2/.test(r.status) ? success : other).add(bare(t));
  for (const t of success) other.delete(t);
  return { success: [...success], other: [...other] };
}

/** What every request of the operation asks for: the declared media types (successes first), else anything. */
export function defaultAccept(op: Operation): string {
  const { success, other } = responseMediaTypes(op);
  const all = [...success, ...other];
  return all.length > 0 ? all.join(', ') : '*/*';
}

/**
 * The media type a JSON text goes in to the operation (a body built as JSON, the presence probe's malformed
 * JSON): the first JSON one its request body declares (a vendor `+json` type included), else application/json.
 */
export function jsonRequestType(op: Operation): string {
  const declared = (op.requestBodies && op.requestBodies.length > 0 ? op.requestBodies : op.requestBody ? [op.requestBody] : []).map((b) => b.contentType);
  return declared.find((t) => /^[^;]*json/i.test(t) && !t.includes('*')) ?? 'application/json';
}

/** Media types asked for where the operation declares none of them (the accept-undeclared class). */
const UNDECLARED_CANDIDATES = ['application/xml', 'text/csv', 'text/html', 'image/png'];

/** Whether a declared media type (wildcards allowed) covers a concrete one. */
function covers(declared: string, concrete: string): boolean {
  const [dt = '', ds = ''] = declared.split('/');
  const [ct = '', cs = ''] = concrete.split('/');
  return (dt === '*' || dt === ct) && (ds === '*' || ds === cs || (ds.startsWith('*+') && cs.endsWith(ds.slice(1))));
}

/** A plain media type no response of the operation declares (none where a wildcard covers them all). */
export function undeclaredAccept(op: Operation): string | undefined {
  const { success, other } = responseMediaTypes(op);
  const declared = [...success, ...other];
  if (declared.length === 0) return undefined;
  return UNDECLARED_CANDIDATES.find((c) => !declared.some((d) => covers(d, c)));
}
