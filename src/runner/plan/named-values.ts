import { isDeepStrictEqual } from 'node:util';
/**
 * Values of the kind a field's name says it holds, and values a backend keeps unique drawn afresh.
 *  - A string field named `email`, `url`, `image`, `username` or `password` (in any usual spelling) whose schema
 *    sets no known format, pattern or list of values gets a value of that kind: a backend checks an address is an
 *    address, a username holds letters and digits, whatever the contract's schema shows; the record is what the
 *    run needs to get past the door.
 *  - Text the run makes up (`conf-`, `conf.` or `conf` and eight letters or digits, plan/values.ts) is drawn afresh in each
 *    variation of a write, so that a backend that keeps a field unique (a title that becomes a slug, a username,
 *    an e-mail address, a code) takes each create as a new record.
 * Pure functions of the name, the schema and the seed.
 */
import fc from 'fast-check';
import type { JsonSchema } from '../model.ts';
import { accepts } from './accepts.ts';
import { formatRow } from './formats.ts';
import { factsOf } from './keywords.ts';
import type { Random } from './random.ts';

type Kind = 'email' | 'url' | 'image' | 'username' | 'password';

const KINDS: Array<[RegExp, Kind]> = [
  [/(^|[a-z0-9_-])e[-_]?mail(_?address)?$/i, 'email'],
  [/(^|[a-z0-9_-])(image|avatar|picture|photo)(_?url)?$/i, 'image'],
  [/(^|[a-z0-9_-])(url|uri|website|homepage)$/i, 'url'],
  [/(^|[a-z0-9_-])user[-_]?name$|^login$|^handle$/i, 'username'],
  [/(^|[a-z0-9_-])pass[-_]?(word)?$/i, 'password'],
];

/** The kind a field's name says it holds (`email`, `avatarUrl`, `user_name`), if any. */
export function namedKind(name: string): Kind | undefined {
  return KINDS.find(([pattern]) => pattern.test(name))?.[1];
}

function kindValue(kind: Kind, word: string): string {
  switch (kind) {
    case 'email':
      return `conf.${word}@example.com`;
    case 'image':
      return `https://example.com/conf-${word}.png`;
    case 'url':
      return `https://example.com/conf-${word}`;
    case 'username':
      return `conf${word}`;
    case 'password':
      return `Conf${word}7`;
  }
}

/** Whether the schema leaves the kind to the name: a string of no known format, pattern or listed values. */
function leftToName(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return schema;
  const facts = factsOf(schema);
  return (facts.types.length === 0 || facts.types.includes('string')) && facts.pattern === undefined && !facts.allowed && formatRow(facts.format) === undefined;
}

/** A value of the kind the field's name says, where its schema takes it; undefined otherwise. */
export function namedValue(name: string, schema: JsonSchema, random: Random): string | undefined {
  const kind = namedKind(name);
  if (kind === undefined || !leftToName(schema)) return undefined;
  const value = kindValue(kind, random.word(8));
  return accepts(schema, value) === true ? value : undefined;
}

/** Eight lower-case letters and digits: built once (a string arbitrary slices fast-check's dangerous strings when built). */
let OWN_WORD: fc.Arbitrary<string> | undefined;
const ownWord = (): fc.Arbitrary<string> => (OWN_WORD ??= fc.stringMatching(/^[a-z0-9]{8}$/));

/** Fuzzing's arbitrary of such a field: values of its kind, each new. */
export function namedArbitrary(name: string, schema: JsonSchema): fc.Arbitrary<unknown> | undefined {
  const kind = namedKind(name);
  if (kind === undefined || !leftToName(schema)) return undefined;
  const sample = kindValue(kind, 'abcd1234');
  if (accepts(schema, sample) !== true) return undefined;
  return ownWord().map((word) => kindValue(kind, word));
}

/** A field a backend may keep unique by its name: a title (that becomes a slug), a name, a slug, a code. */
const UNIQUE = /(^|[a-z0-9_-])(title|name|slug|code|handle|login)$/i;

/**
 * Fuzzing's arbitrary of a text field a backend may keep unique (`title`, `name`, `code`): the drawn text with a
 * part of its own after it, so that two creates of one run do not send the same; the arbitrary itself where the
 * schema leaves no room for it (a pattern, listed values, a maximum length under 16).
 */
export function distinctArbitrary(name: string, schema: JsonSchema, arb: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  if (!UNIQUE.test(name) || typeof schema !== 'object') return arb;
  const facts = factsOf(schema);
  if (!facts.types.includes('string') || facts.pattern !== undefined || facts.allowed || formatRow(facts.format) !== undefined || (facts.maxLength ?? Infinity) < 16) return arb;
  return fc.tuple(arb, ownWord()).map(([value, own]) => {
    if (typeof value !== 'string') return value;
    const text = `${value} ${own}`;
    // Within a maximum length however a server counts it (code points, as JSON Schema does, or UTF-16 units).
    const fits = facts.maxLength === undefined || text.length <= facts.maxLength;
    return fits && accepts(schema, text) === true ? text : value;
  });
}

const MADE_UP = /\bconf([-.]?)[a-z0-9]{8}\b/g;

/** The value with the text the run made up (`conf-` and eight letters or digits) drawn afresh throughout. */
export function redrawMadeUp<T>(value: T, random: Random): T {
  if (typeof value === 'string') return value.replace(MADE_UP, (_, separator: string) => `conf${separator}${random.word(8)}`) as T;
  if (Array.isArray(value)) return value.map((item) => redrawMadeUp(item, random)) as T;
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redrawMadeUp(v, random)])) as T;
  }
  return value;
}

/** The value with the text the run made up set to one spelling: two values alike but for it read the same. */
function madeUpAsOne(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(MADE_UP, 'conf');
  if (Array.isArray(value)) return value.map(madeUpAsOne);
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, madeUpAsOne(v)]));
  }
  return value;
}

/** Whether two values are the same but for the text the run made up (drawn afresh in one of them: redrawMadeUp). */
export function sameButMadeUp(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(madeUpAsOne(a), madeUpAsOne(b));
}

/**
 * Whether a request body offers credentials (a field named as a password, at any depth up to 3): sent by the
 * run, they are credentials it made up, and a login's documented 401 to them is the right answer.
 */
export function offersPassword(body: unknown, depth = 0): boolean {
  if (depth > 3 || typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  return Object.entries(body).some(([name, value]) => (namedKind(name) === 'password' && typeof value === 'string') || offersPassword(value, depth + 1));
}

/** A field a backend may keep unique: a title, a name, a slug, a code, a username, an e-mail address. */
export function mayBeUnique(name: string): boolean {
  return UNIQUE.test(name) || namedKind(name) === 'username' || namedKind(name) === 'email';
}

/**
 * The path of a field a variation sets to text of its own (not made up afresh, so another request of the run may
 * send it too) where a backend may keep the field unique (`user.username = ""`): its refusal may be the value
 * being taken, not the value refused. Undefined where the variation sets no such field.
 */
export function fixedUniqueField(positive: unknown, varied: unknown, at = ''): string | undefined {
  if (typeof varied !== 'object' || varied === null || Array.isArray(varied)) return undefined;
  const base = typeof positive === 'object' && positive !== null && !Array.isArray(positive) ? (positive as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(varied)) {
    const path = at === '' ? name : `${at}.${name}`;
    if (typeof value === 'string' && value !== base[name] && mayBeUnique(name) && !new RegExp(MADE_UP.source).test(value)) return path;
    const inner = typeof value === 'object' ? fixedUniqueField(base[name], value, path) : undefined;
    if (inner !== undefined) return inner;
  }
  return undefined;
}
