/**
 * Two body shapes of the coverage phase (plan/coverage-classes.ts) that break parsers and binders rather than
 * validators:
 *
 * - deep-nesting: JSON nested DEEP_LEVELS levels deep in a few kilobytes (`[[[…]]]`, `{"a":{"a":…}}`), as the whole
 *   body and at each object- or array-typed top-level field. A recursive parser runs out of stack on it (a 500);
 *   a correct server parses it, or refuses it with a 4xx (a depth limit). Invalid where the schema makes it so
 *   (judged as a negative), else only its answer is judged: no server error, no dropped connection, an answer
 *   the contract documents.
 * - values-as-array: the positive body's own values as a JSON array, in the schema's property order (`[5,"x",false]`
 *   for `{id, value, done}`): what a decoder that builds a record from a sequence takes. Invalid for an object body.
 *
 * The deep bodies are built and sent as text only: no JS value that deep is ever serialised, cloned or walked
 * (JSON.stringify and structuredClone run out of stack on it); accepts() walks a value only as deep as its schema.
 */
import { stringify as losslessStringify } from 'lossless-json';
import type { JsonSchema } from '../model.ts';
import { accepts } from './accepts.ts';
import type { CoverageRequest } from './coverage-request.ts';
import { factsOf, mergedShape } from './keywords.ts';
import { isOmitted } from './values.ts';

/** How deep the deep-nesting bodies go: 10 KB as arrays, 30 KB as objects, far below any body limit. */
export const DEEP_LEVELS = 5_000;

/** Stands in a body's text for the deep value, replaced by its text once the rest is written. */
const HOLE = '\uE001conformance-deep\uE001';

type Shape = 'array' | 'object';

interface Deep {
  /** The nested value, built without recursion (only accepts() looks into it, as deep as the schema goes). */
  value: unknown;
  text: string;
  shown: string;
}

function nested(shape: Shape): Deep {
  let value: unknown = shape === 'array' ? [] : {};
  for (let i = 1; i < DEEP_LEVELS; i++) value = shape === 'array' ? [value] : { a: value };
  const text = shape === 'array' ? `${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}` : `${'{"a":'.repeat(DEEP_LEVELS - 1)}{}${'}'.repeat(DEEP_LEVELS - 1)}`;
  return { value, text, shown: shape === 'array' ? '[[[…]]]' : '{"a":{"a":…}}' };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A verdict that never throws (a schema of its own recursion may walk far into the value). */
function verdictOf(schema: JsonSchema, value: unknown): boolean | undefined {
  try {
    return accepts(schema, value);
  } catch {
    return undefined;
  }
}

/** The JSON kinds a field's schema declares, a nullable's one branch (`anyOf: [X, {type: 'null'}]`) included. */
function kinds(schema: JsonSchema): string[] {
  if (typeof schema !== 'object') return [];
  const facts = factsOf(mergedShape(schema));
  const branches = [schema['anyOf'], schema['oneOf']].flatMap((b) => (Array.isArray(b) ? (b as JsonSchema[]) : []));
  const types = [...facts.types, ...branches.flatMap((b) => factsOf(b).types)];
  return types.length === 0 && facts.hasProperties ? ['object'] : types;
}

/** A must-reject item where the verdict is false (`what (note, refused)`); else one whose answer alone is judged. */
function item(verdict: boolean | undefined, what: string, note: string, refused: string, rawBody: string, contentType: string, cls: string): CoverageRequest {
  if (verdict === false) return { label: `${what} (${note}, ${refused})`, valid: false, class: cls, rawBody, contentType };
  const why = verdict === true ? 'the schema allows it' : 'the schema does not say';
  return { label: `${what} (${note}; ${why}: only the answer is judged)`, valid: true, judgeAs: 'response', class: cls, rawBody, contentType };
}

/**
 * The whole body nested DEEP_LEVELS arrays deep, then the positive body with each object- or array-typed top-level
 * field nested as deep (objects as objects, arrays as arrays).
 */
export function deepNestingItems(schema: JsonSchema, contentType: string, body: unknown): CoverageRequest[] {
  const levels = DEEP_LEVELS.toLocaleString('en-US');
  const arrays = nested('array');
  const out: CoverageRequest[] = [item(verdictOf(schema, arrays.value), `body = ${arrays.shown}`, `nested ${levels} levels deep`, 'the body schema refuses it', arrays.text, contentType, 'deep-nesting')];
  if (!isRecord(body)) return out;
  const positiveOk = verdictOf(schema, body);
  for (const [name, field] of Object.entries(factsOf(mergedShape(schema)).properties)) {
    if (isOmitted(field)) continue;
    const types = kinds(field);
    const shape: Shape | undefined = types.includes('object') ? 'object' : types.includes('array') ? 'array' : undefined;
    if (shape === undefined) continue;
    const deep = shape === 'array' ? arrays : nested('object');
    const whole = verdictOf(schema, { ...body, [name]: deep.value });
    // Invalid for certain where the field's own schema refuses it, or where the positive body was valid.
    const verdict = verdictOf(field, deep.value) === false ? false : whole === true ? true : whole === false && positiveOk === true ? false : undefined;
    const text = (losslessStringify({ ...body, [name]: HOLE }) as string).replace(JSON.stringify(HOLE), () => deep.text);
    out.push(item(verdict, `body.${name} = ${deep.shown}`, `nested ${levels} levels deep`, 'the schema refuses it', text, contentType, 'deep-nesting'));
  }
  return out;
}

/** The positive body's values as a JSON array in the schema's property order (the others after); none for no object. */
export function valuesAsArrayItem(schema: JsonSchema, contentType: string, body: unknown): CoverageRequest | undefined {
  if (!isRecord(body) || Object.keys(body).length === 0) return undefined;
  const declared = Object.keys(factsOf(mergedShape(schema)).properties).filter((k) => Object.hasOwn(body, k));
  const order = [...declared, ...Object.keys(body).filter((k) => !declared.includes(k))];
  const values = order.map((k) => body[k]);
  const verdict = accepts(schema, values);
  if (verdict === undefined) return undefined;
  const text = losslessStringify(values) as string;
  const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
  return item(verdict, `body = ${shown}`, "the body's own values as an array", 'not an object', text, contentType, 'values-as-array');
}
