/**
 * Negative cases for a required query, header or cookie parameter left out: the request without it must be
 * rejected with a 4xx. Parameters that carry credentials or that the HTTP layer itself sets are left alone:
 * the profile's auth header, the operation's apiKey parameters, and the headers OpenAPI says a header
 * parameter cannot describe (Accept, Content-Type, Authorization) or that every request carries anyway.
 * Pure: no I/O.
 */
import type { Operation, ParameterSpec } from '../model.ts';
import type { Profile } from '../description/profile.ts';
import type { RequestPlan } from './request-plan.ts';

/** Headers the client sets on every request, or that OpenAPI ignores as header parameters. */
const TRANSPORT_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'authorization',
  'connection',
  'content-length',
  'content-type',
  'cookie',
  'host',
  'proxy-authorization',
  'traceparent',
  'transfer-encoding',
  'x-conformance-run-id',
]);

export type OmittedParameter = Pick<ParameterSpec, 'name' | 'in'>;

/** The required query, header and cookie parameters whose absence the deployment must refuse. */
export function omittableParameters(op: Operation, profile: Profile): OmittedParameter[] {
  const credential = (p: ParameterSpec) =>
    (op.auth ?? []).some((s) => s.kind === 'apiKey' && s.in === p.in && (p.in === 'header' ? s.parameter.toLowerCase() === p.name.toLowerCase() : s.parameter === p.name));
  return op.parameters
    .filter((p) => p.required && (p.in === 'query' || p.in === 'header' || p.in === 'cookie'))
    .filter((p) => !(p.in === 'header' && (TRANSPORT_HEADERS.has(p.name.toLowerCase()) || p.name.toLowerCase() === profile.auth.header.toLowerCase())))
    .filter((p) => !credential(p))
    .map((p) => ({ name: p.name, in: p.in }));
}

/** The request without the parameter (wherever the plan put it: declared values or the example's query). */
export function withoutParameter(request: RequestPlan, p: OmittedParameter): RequestPlan {
  const drop = <T>(values: Record<string, T> | undefined, caseless: boolean): Record<string, T> =>
    Object.fromEntries(Object.entries(values ?? {}).filter(([k]) => (caseless ? k.toLowerCase() !== p.name.toLowerCase() : k !== p.name)));
  if (p.in === 'query') return { ...request, query: drop(request.query, false) };
  if (p.in === 'header') return { ...request, headers: drop(request.headers, true) };
  return { ...request, cookies: drop(request.cookies, false) };
}

/**
 * True when any 4xx is the right refusal: the profile states no status for invalid input (the generic
 * profile). A platform that maps invalid input to 400 judges these cases like its other negative cases.
 */
export function anyClientErrorRejects(profile: Profile): boolean {
  return !profile.statuses.some((s) => s.status === 400);
}
