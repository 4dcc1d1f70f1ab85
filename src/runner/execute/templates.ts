import { atPointer } from '../checks/types.ts';

export interface TemplateScope {
  unique: string;
  /** Response bodies of setup steps, by their `as` name. */
  steps: Record<string, unknown>;
  /** Reads the one-time password of a transaction from the OTP source. */
  otp: (transactionId: string) => Promise<string>;
}

const WHOLE = /^\{\{(.+)\}\}$/;

/** Replaces whole-string {{templates}} in a JSON value (see contract/examples.yaml for the forms). */
export async function resolveTemplates(value: unknown, scope: TemplateScope): Promise<unknown> {
  if (typeof value === 'string') {
    const match = WHOLE.exec(value);
    if (!match) return value.includes('{{unique}}') ? value.split('{{unique}}').join(scope.unique) : value;
    return resolveExpression(match[1]!.trim(), scope);
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveTemplates(v, scope)));
  if (typeof value === 'object' && value !== null) {
    const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await resolveTemplates(v, scope)] as const));
    return Object.fromEntries(entries);
  }
  return value;
}

async function resolveExpression(expr: string, scope: TemplateScope): Promise<unknown> {
  if (expr === 'unique') return scope.unique;
  if (expr.startsWith('otp:')) {
    const transactionId = await resolveExpression(expr.slice(4), scope);
    return scope.otp(String(transactionId));
  }
  const dot = expr.indexOf('.');
  const step = dot < 0 ? expr : expr.slice(0, dot);
  if (!(step in scope.steps)) throw new Error(`template {{${expr}}} names no setup step "${step}"`);
  return atPointer(scope.steps[step], dot < 0 ? '' : expr.slice(dot + 1));
}
