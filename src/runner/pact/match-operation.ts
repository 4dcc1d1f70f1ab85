/**
 * Maps a pact interaction's method and path onto a contract operation. Path templates are matched segment
 * by segment: a literal segment must be equal, a `{name}` segment takes any one non-empty segment (its
 * percent-decoded value is returned as the path parameter). Literal matches win over templated ones, so
 * "/orders/latest" would prefer a literal route over "/orders/{id}".
 */
import type { Contract, Operation } from '../model.ts';

export interface OperationMatch {
  operation: Operation;
  pathParams: Record<string, string>;
}

function segments(path: string): string[] {
  return (path.split('?')[0] ?? '').split('/').filter((s) => s !== '');
}

function matchTemplate(template: string, path: string): { params: Record<string, string>; literals: number } | undefined {
  const t = segments(template);
  const p = segments(path);
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  let literals = 0;
  for (const [i, ts] of t.entries()) {
    const ps = p[i] ?? '';
    const name = /^\{([^}]+)\}$/.exec(ts)?.[1];
    if (name !== undefined) {
      let value = ps;
      try {
        value = decodeURIComponent(ps);
      } catch {
        // keep the raw segment when it is not valid percent-encoding
      }
      params[name] = value;
    } else if (ts === ps) {
      literals++;
    } else {
      return undefined;
    }
  }
  return { params, literals };
}

/**
 * The operation of `provider` (a service id) whose method and path template match. When the contract has no
 * service of that name, every operation is a candidate.
 */
export function matchOperation(contract: Contract, provider: string, method: string, path: string): OperationMatch | undefined {
  const own = contract.operations.filter((op) => op.service === provider);
  const candidates = own.length > 0 ? own : contract.operations;
  let best: { match: OperationMatch; literals: number } | undefined;
  for (const operation of candidates) {
    if (operation.method !== method.toUpperCase()) continue;
    const m = matchTemplate(operation.path, path);
    if (!m) continue;
    if (!best || m.literals > best.literals) best = { match: { operation, pathParams: m.params }, literals: m.literals };
  }
  return best?.match;
}

/** Operations of `provider` whose path template matches, whatever the method (to tell "wrong method" apart). */
export function operationsAtPath(contract: Contract, provider: string, path: string): Operation[] {
  const own = contract.operations.filter((op) => op.service === provider);
  const candidates = own.length > 0 ? own : contract.operations;
  return candidates.filter((op) => matchTemplate(op.path, path) !== undefined);
}
