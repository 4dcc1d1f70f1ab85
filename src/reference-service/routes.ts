/**
 * The operations the reference service serves, and routing. Routing comes before auth: an unknown path or a
 * known path with another method answers the way a gateway does (404 / 405, no platform envelope).
 */

export type ServiceId = 'customer-service' | 'foreign-trade-service';

export const OPERATION_IDS = [
  'create-address-type',
  'update-address-type',
  'delete-address-type',
  'get-address-type-field-list',
  'create-address-type-field',
  'get-address-type-field-by-id',
  'update-address-type-field',
  'delete-address-type-field',
  'customer-get-cache-key-list',
  'customer-refresh-cache',
  'create-user',
  'send-forget-password-otp',
  'verify-forget-password-otp',
  'get-foreign-trade-reference-number',
  'validate-reference-number',
] as const;

export type OperationId = (typeof OPERATION_IDS)[number];

export interface RouteDef {
  operationId: OperationId;
  service: ServiceId;
  method: string;
  /** Path template relative to the service base. */
  path: string;
}

export const ROUTES: readonly RouteDef[] = [
  { operationId: 'create-address-type', service: 'customer-service', method: 'POST', path: '/address-types' },
  { operationId: 'update-address-type', service: 'customer-service', method: 'PUT', path: '/address-types/{id}' },
  { operationId: 'delete-address-type', service: 'customer-service', method: 'DELETE', path: '/address-types/{id}' },
  { operationId: 'get-address-type-field-list', service: 'customer-service', method: 'GET', path: '/address-types/{id}/fields' },
  { operationId: 'create-address-type-field', service: 'customer-service', method: 'POST', path: '/address-types/{id}/fields' },
  { operationId: 'get-address-type-field-by-id', service: 'customer-service', method: 'GET', path: '/address-types/{id}/fields/{fieldId}' },
  { operationId: 'update-address-type-field', service: 'customer-service', method: 'PUT', path: '/address-types/{id}/fields/{fieldId}' },
  { operationId: 'delete-address-type-field', service: 'customer-service', method: 'DELETE', path: '/address-types/{id}/fields/{fieldId}' },
  { operationId: 'customer-get-cache-key-list', service: 'customer-service', method: 'GET', path: '/caches/keys' },
  { operationId: 'customer-refresh-cache', service: 'customer-service', method: 'POST', path: '/caches/refresh' },
  { operationId: 'create-user', service: 'customer-service', method: 'POST', path: '/users' },
  { operationId: 'send-forget-password-otp', service: 'customer-service', method: 'POST', path: '/users/forget-password' },
  { operationId: 'verify-forget-password-otp', service: 'customer-service', method: 'POST', path: '/users/forget-password-verify' },
  { operationId: 'get-foreign-trade-reference-number', service: 'foreign-trade-service', method: 'POST', path: '/reference-numbers/generate' },
  { operationId: 'validate-reference-number', service: 'foreign-trade-service', method: 'POST', path: '/reference-numbers/validate' },
];

export const SERVICE_IDS: readonly ServiceId[] = ['customer-service', 'foreign-trade-service'];

/** Matches a path against a template whose `{name}` segments match any one non-empty segment. */
export function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    const name = /^\{(.+)\}$/.exec(w)?.[1];
    if (name !== undefined) {
      if (g === '') return undefined;
      params[name] = safeDecode(g);
    } else if (w !== g) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export type RouteMatch =
  | { kind: 'operation'; route: RouteDef; params: Record<string, string>; relativePath: string }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allow: string[] };

/**
 * Resolves a request path (from the server root) and method to an operation. Removed operations are
 * treated as absent: their route is unknown (404), and they are left out of a 405's Allow list.
 */
export function resolveRoute(pathname: string, method: string, removed: ReadonlySet<string>): RouteMatch {
  const service = SERVICE_IDS.find((s) => pathname.startsWith(`/${s}/`));
  if (service === undefined) return { kind: 'not-found' };
  const relativePath = pathname.slice(service.length + 1);
  const candidates: Array<{ route: RouteDef; params: Record<string, string> }> = [];
  for (const route of ROUTES) {
    if (route.service !== service || removed.has(route.operationId)) continue;
    const params = matchTemplate(route.path, relativePath);
    if (params !== undefined) candidates.push({ route, params });
  }
  const hit = candidates.find((c) => c.route.method === method);
  if (hit !== undefined) return { kind: 'operation', route: hit.route, params: hit.params, relativePath };
  // A removed operation answers like an unknown route even when its path serves other methods.
  const removedHere = ROUTES.some(
    (r) => r.service === service && r.method === method && removed.has(r.operationId) && matchTemplate(r.path, relativePath) !== undefined,
  );
  if (candidates.length === 0 || removedHere) return { kind: 'not-found' };
  return { kind: 'method-not-allowed', allow: [...new Set(candidates.map((c) => c.route.method))].sort() };
}
