/** Deprecation, sunset and stability of operations and parameters (the `x-sunset` and `x-stability-level` extensions). */
import type { Obj } from './schema-view.ts';

const STABILITY = ['draft', 'alpha', 'beta', 'stable'];

/** A sunset date (RFC 3339 date or date-time); undefined when absent, null when unreadable. */
export function sunsetOf(o: Obj): Date | null | undefined {
  const raw = o['x-sunset'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(raw)) return null;
  const d = new Date(raw);
  return Number.isNaN(d.getTime()) ? null : d;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** How a thing the base had and the revision dropped was removed: with notice, before its sunset, or without. */
export function removal(base: Obj, now: Date): { how: 'with-deprecation' | 'before-sunset' | 'without-deprecation'; sunset?: string } {
  if (base['deprecated'] !== true) return { how: 'without-deprecation' };
  const sunset = sunsetOf(base);
  if (sunset && sunset.getTime() > now.getTime()) return { how: 'before-sunset', sunset: day(sunset) };
  return { how: 'with-deprecation' };
}

export interface LifecycleEmit {
  (kind: 'deprecated' | 'deprecated-with-sunset' | 'reactivated' | 'sunset-parse' | 'sunset-deleted' | 'sunset-earlier' | 'stability-decreased' | 'stability-invalid', from?: string, to?: string): void;
}

/** The lifecycle changes between two versions of one operation or parameter. */
export function lifecycle(base: Obj, revision: Obj, emit: LifecycleEmit): void {
  const [bd, rd] = [base['deprecated'] === true, revision['deprecated'] === true];
  const [bs, rs] = [sunsetOf(base), sunsetOf(revision)];
  if (rd && rs === null) emit('sunset-parse', undefined, String(revision['x-sunset']));
  if (!bd && rd) emit(rs ? 'deprecated-with-sunset' : 'deprecated', undefined, rs ? day(rs) : undefined);
  if (bd && !rd) emit('reactivated');
  if (bd && rd && bs && rs === undefined) emit('sunset-deleted', day(bs));
  if (bd && rd && bs && rs && rs.getTime() < bs.getTime()) emit('sunset-earlier', day(bs), day(rs));
  const [bl, rl] = [base['x-stability-level'], revision['x-stability-level']];
  if (rl !== undefined && (typeof rl !== 'string' || !STABILITY.includes(rl))) emit('stability-invalid', undefined, JSON.stringify(rl));
  else if (typeof bl === 'string' && typeof rl === 'string' && STABILITY.indexOf(rl) < STABILITY.indexOf(bl)) emit('stability-decreased', bl, rl);
}
