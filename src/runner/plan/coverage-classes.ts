import type { Operation } from '../model.ts';
import type { PositiveRequest } from './arbitraries.ts';
import { deepNestingItems, valuesAsArrayItem } from './body-shapes.ts';
import { acceptItems, additionalProperty, allAtBound, emptyBody, malformedContentTypes, malformedJson, notUtf8Body, nullBody, randomItems, undeclaredMediaType, wrongKindBodies } from './coverage-body-makers.ts';
import {
  arrayItemProbes,
  beyondInt64First,
  beyondInt64Rest,
  boundCandidates,
  type Candidate,
  coercibleTypes,
  type CoverageOptions,
  decimalIntegers,
  edgeValues,
  emptyArray,
  emptyString,
  enumValues,
  fieldContext,
  formatRespellings,
  identifierLike,
  invalidFormats,
  judged,
  noMatchFilter,
  nullValue,
  optionalPresence,
  outsideEnumValue,
  pathSegments,
  unicodeValue,
  withEmptyValues,
  wrongTypes,
} from './coverage-makers.ts';
import { jsonBody, type Target, targetKey, targetsOf, wholeKey } from './coverage-targets.ts';
import type { Random } from './random.ts';

/**
 * The input classes that break servers, as overrides of an operation's positive request: the coverage phase
 * sends each one and judges it as a positive (valid) or as a negative (invalid). Every `valid` is shown, never
 * assumed: a value's validity comes from accepts() (against the parameter's schema, or the whole body), and an
 * item whose validity accepts() cannot decide is left out. Deterministic for a Random seed.
 *
 * The classes, their tiers, where each applies, its maker and its validity rule are the rows of
 * plan/coverage-table.ts; the targets are plan/coverage-targets.ts's; the makers are plan/coverage-makers.ts's (a
 * parameter's or body field's values) and plan/coverage-body-makers.ts's (the whole request). This file orders them.
 *
 * Ordering: one item of each body-level class first (cheap, and they catch the most); then a round robin over
 * the targets (path, query, header and cookie parameters in declaration order, then the body fields in schema
 * order, then the other body-level items) in which each target, at its turn, sends its first item of a class
 * kind not yet sent, else its next item; so a small `max` touches every parameter and as many class kinds as
 * it can. all-at-bound and random come last.
 * Requests identical to an earlier one or to the positive request are left out; the list is cut at `max`.
 */

export type { CoverageRequest } from './coverage-request.ts';
import type { CoverageRequest } from './coverage-request.ts';
import { fixedUniqueField, redrawMadeUp } from './named-values.ts';

export type { PositiveRequest };
export type { CoverageOptions } from './coverage-makers.ts';
export { withAdditionalProperty } from './coverage-body-makers.ts';
export { hasBigInt } from './coverage-targets.ts';

/** The coverage phase's requests for one operation: its input classes first, then random variations, at most `max`. */
export function coverageRequests(op: Operation, positive: PositiveRequest, random: Random, max: number, options: CoverageOptions = {}): CoverageRequest[] {
  if (max <= 0) return [];
  const out: CoverageRequest[] = [];
  const targets = targetsOf(op, positive);
  // What the positive request sends is no variation: each target's own value is seen already.
  const seen = new Set<string>(targets.flatMap((t) => (t.positiveValue === undefined ? [] : [targetKey(t, t.positiveValue)])));
  const push = (item: CoverageRequest | undefined, key: string | undefined): boolean => {
    if (!item || key === undefined || out.length >= max || seen.has(key)) return false;
    seen.add(key);
    out.push(item);
    return true;
  };

  const bodyLevel = bodyLevelItems(op, positive);
  for (const item of bodyLevel.first) push(item, wholeKey(item));

  // Candidates are judged only when their turn comes (a small max judges few). The other body-level items take
  // their turns after the fields'.
  const queues: Pending[][] = [
    ...targets.map((t) => pending(t, candidates(t, op, random, options))),
    bodyLevel.later.map((item) => ({ class: item.class, key: wholeKey(item), judge: () => item })),
  ];
  const kinds = new Set(out.map((i) => i.class));
  while (out.length < max && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      // At its turn a target sends its first item of a class kind not sent yet, else its next one; of two
      // candidates sending the same request, the earlier one (its label says more) goes.
      while (queue.length > 0 && out.length < max) {
        const fresh = Math.max(0, queue.findIndex((p) => !kinds.has(p.class)));
        const at = queue.findIndex((p) => p.key === queue[fresh]?.key);
        const [next] = queue.splice(at, 1);
        const item = next?.judge();
        if (item && push(item, next?.key)) {
          kinds.add(item.class);
          break;
        }
      }
    }
  }

  for (const [item, key] of acceptItems(op, out)) push(item, key);
  for (const [item, key] of malformedContentTypes(op, positive)) push(item, key);
  for (const [item, key] of allAtBound(op, positive, targets, random)) push(item, key);
  for (const [item, key] of randomItems(targets, positive, random, max - out.length)) push(item, key);
  // Each variation of a write makes a record of its own where the backend keeps made-up text unique (a title
  // that becomes a slug): the text the run made up is drawn afresh in each.
  if (!WRITES.has(op.method)) return out;
  return out.map((item) => {
    if (item.body === undefined) return item;
    const fixed = item.valid && item.refusalMayBeRight === undefined ? fixedUniqueField(positive.body, item.body) : undefined;
    const reason = fixed !== undefined ? `body.${fixed} is a field a backend may keep unique, and another request of the run may hold the same value` : undefined;
    return { ...item, body: redrawMadeUp(item.body, random), ...(reason !== undefined ? { refusalIfTaken: reason } : {}) };
  });
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** A candidate waiting for its turn: its class and request are known, its validity is judged on its turn. */
interface Pending {
  class: string;
  key: string;
  judge(): CoverageRequest | undefined;
}

function pending(target: Target, list: Candidate[]): Pending[] {
  const out: Pending[] = [];
  for (const c of list) {
    out.push({
      class: c.class,
      key: targetKey(target, c.value),
      judge: () => {
        const request = target.request(c.value);
        return request && judged(target, c, request);
      },
    });
  }
  return out;
}

/** The candidate values of one target, in the order the target offers them. */
function candidates(t: Target, op: Operation, random: Random, options: CoverageOptions): Candidate[] {
  const c = fieldContext(t, op, random, options);
  if (!c) return [];
  const list: Candidate[] = [...beyondInt64First(c), ...wrongTypes(c), ...coercibleTypes(c), ...decimalIntegers(c), ...invalidFormats(c), ...formatRespellings(c)];
  const bounds = boundCandidates(c.schema, t.where, random);
  list.push(...bounds.filter((b) => b.intent === false), ...nullValue(c), ...bounds.filter((b) => b.intent !== false));
  list.push(...emptyString(c), ...unicodeValue(c), ...outsideEnumValue(c), ...enumValues(c), ...emptyArray(c), ...beyondInt64Rest(c));
  list.push(...identifierLike(c), ...pathSegments(c), ...arrayItemProbes(c), ...noMatchFilter(c), ...edgeValues(c), ...optionalPresence(c));
  return withEmptyValues(c, list);
}

/** One item of each body-level class (first), and the others. */
function bodyLevelItems(op: Operation, positive: PositiveRequest): { first: CoverageRequest[]; later: CoverageRequest[] } {
  if (!op.requestBody) return { first: [], later: [] };
  const json = jsonBody(op);
  const [wrongKind, ...otherKinds] = json ? wrongKindBodies(json, positive) : [];
  const first = [...(json ? malformedJson(json) : []), ...emptyBody(op.requestBody), ...(wrongKind ? [wrongKind] : []), ...undeclaredMediaType(op, positive)];
  if (!json) return { first, later: [] };
  // Shapes that break parsers and binders (plan/body-shapes.ts): the body's own values as an array, JSON nested deep.
  const asArray = valuesAsArrayItem(json.schema, json.contentType, positive.body);
  const later = [...additionalProperty(json, positive), ...otherKinds, ...notUtf8Body(json, positive), ...nullBody(json), ...(asArray ? [asArray] : []), ...deepNestingItems(json.schema, json.contentType, positive.body)];
  return { first, later };
}
