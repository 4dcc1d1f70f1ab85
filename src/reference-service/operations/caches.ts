/**
 * Caches (seed §2.3, §2.4, §4.3). Field types are not shown, so request fields are not type-checked and
 * none is required. A refresh succeeds when `key` (exactly) names a known cache key; otherwise the result
 * says isSuccess false. The result echoes the key sent (null when none was sent).
 */
import { applyListQuery } from '../list.ts';
import { created, ok } from '../replies.ts';
import type { Operation } from '../state.ts';
import { checkListQuery, checkObjectBody, type FieldRule } from '../validate.ts';

const REFRESH: readonly FieldRule[] = [
  { name: 'key', type: 'untyped' },
  { name: 'mode', type: 'untyped' },
  { name: 'isSharedBetweenApplications', type: 'untyped' },
  { name: 'isSharedBetweenTenants', type: 'untyped' },
];

export const getCacheKeyList: Operation = (req, { state }) => {
  const query = checkListQuery(req.query, req.lenient);
  if (!query.ok) return query.reply;
  return ok(applyListQuery(state.caches, query.value).map((c) => ({ ...c })));
};

export const refreshCache: Operation = (req, { state, createShape }) => {
  const body = checkObjectBody(req, REFRESH);
  if (!body.ok) return body.reply;
  const key = body.value['key'];
  const isSuccess = typeof key === 'string' && state.caches.some((c) => c.key === key);
  return created({ isSuccess, key: key ?? null }, createShape);
};
