/**
 * Other bodies a create may be sent where the one sent for a record a case needs was refused (search.ts
 * sends them): bodies the create answered with success earlier in the run, the body with its fields that name
 * other records filled from what the run saw (or left out where optional), the contract's other examples of the
 * body, the body with strings set as their names suggest (an e-mail address for `email`), and bodies drawn from
 * its schema that vary those fields first. Each one the body's schema accepts. Pure.
 */
import fc from 'fast-check';
import type { Contract, JsonSchema, Operation } from '../../model.ts';
import { accepts } from '../../plan/accepts.ts';
import { schemaArbitrary } from '../../plan/arbitraries.ts';
import { formatRow } from '../../plan/formats.ts';
import { factsOf, mergedShape } from '../../plan/keywords.ts';
import { Random } from '../../plan/random.ts';
import { lastSegmentName, namedCollections, namesRecord, referenceStem } from '../../plan/relations.ts';
import { withoutReadOnly } from '../../plan/parameters.ts';
import { redrawMadeUp } from '../../plan/named-values.ts';
import { withReference } from './references.ts';
import { seedOf } from '../fuzz.ts';

export type CandidateKind = 'answered' | 'references' | 'example' | 'named' | 'varied' | 'generated';

export interface Candidate {
  kind: CandidateKind;
  /** What the body is, as the reports say it ("folderId from GET /folders"). */
  label: string;
  body: unknown;
}

/** A top-level body field that names another record, with the kind of record (`folder` for `folderId`, `folder`). */
export interface ReferenceField {
  name: string;
  stem: string;
  schema: JsonSchema;
  required: boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON body's schema, allOf merged. */
function bodySchema(op: Operation): JsonSchema | undefined {
  return op.requestBody && /json/i.test(op.requestBody.contentType) ? mergedShape(op.requestBody.schema) : undefined;
}

/** Whether the create's JSON body schema accepts the body (undefined: it cannot tell, and the body is not sent). */
export function fitsBody(op: Operation, body: unknown): boolean {
  return op.requestBody !== undefined && accepts(op.requestBody.schema, body) === true;
}

/** Text with each run of 6 or more hex digits drawn afresh (a name made unique by the run: sent again, it is new). */
function redrawText(text: string, random: Random): string {
  return text.replace(/[0-9a-f]{6,}/gi, (run) => Array.from(run, () => '0123456789abcdef'[random.int(0, 15)]).join(''));
}

/**
 * The body with its unique-looking text (top-level strings) drawn afresh, and an integer `id` the client chooses
 * (the record's own) drawn anew: a body sent again makes a record of its own.
 */
export function redrawn(body: unknown, random: Random): unknown {
  if (!isRecord(body)) return body;
  // Text made up by the run, at any depth (a record in an envelope: `{"article": {"title": …}}`), is drawn afresh too.
  const fresh = redrawMadeUp(body, random);
  return Object.fromEntries(Object.entries(fresh).map(([name, value]) => [name, typeof value === 'string' && !namesRecord(name) ? redrawText(value, random) : /^id$/i.test(name) && Number.isSafeInteger(value) ? random.int(1, 2_000_000_000) : value]));
}

/** Bodies the create answered with success earlier in the run, newest first, their unique-looking text drawn afresh. */
export function answeredCandidates(op: Operation, bodies: unknown[], random: Random): Candidate[] {
  return bodies.map((body) => redrawn(body, random)).filter((body) => fitsBody(op, body)).map((body) => ({ kind: 'answered', label: 'a body it answered with success earlier in the run', body }));
}

/**
 * The body's top-level fields that name other records: by their name (`folderId`, `owner_id`), or named as a
 * collection of the same service is (`folder` where `/folders` is a path), with a scalar type.
 */
export function referenceFields(contract: Contract, op: Operation): ReferenceField[] {
  const schema = bodySchema(op);
  if (schema === undefined) return [];
  const facts = factsOf(schema);
  const collections = new Set(contract.operations.filter((o) => o.service === op.service && !o.path.includes('{')).map((o) => lastSegmentName(o.path)));
  const out: ReferenceField[] = [];
  for (const [name, property] of Object.entries(facts.properties)) {
    const types = factsOf(property).types;
    if (!types.some((t) => t === 'integer' || t === 'string' || t === 'number') || factsOf(property).allowed) continue;
    const stem = referenceStem(name) ?? name.replace(/[-_]/g, '').toLowerCase();
    if (referenceStem(name) === undefined && !namedCollections(stem).some((c) => collections.has(c))) continue;
    out.push({ name, stem, schema: property, required: facts.required.includes(name) });
  }
  return out;
}

/**
 * The body with each reference field set to the newest value `values` gives that its schema accepts, and an
 * optional one left out where none does; undefined when nothing changes.
 */
export function withReferences(op: Operation, base: unknown, fields: ReferenceField[], values: (field: ReferenceField) => string[], source: string): Candidate | undefined {
  if (!isRecord(base) || fields.length === 0) return undefined;
  let body: Record<string, unknown> = { ...base };
  const said: string[] = [];
  for (const field of fields) {
    const value = [...values(field)].reverse().map((v) => withReference(op, {}, field.name, v)).map((b) => (b as Record<string, unknown>)[field.name]).find((v) => v !== undefined && accepts(field.schema, v) === true);
    if (value !== undefined && value !== base[field.name]) {
      body = { ...body, [field.name]: value };
      said.push(`${field.name} from ${source}`);
    } else if (value === undefined && !field.required && field.name in body) {
      const { [field.name]: _left, ...rest } = body;
      body = rest;
      said.push(`${field.name} left out`);
    }
  }
  return said.length > 0 && fitsBody(op, body) ? { kind: 'references', label: said.join(', '), body } : undefined;
}

/**
 * The contract's other examples of the body: the media type's, the schema's further `examples`, and the body
 * with each property that lists several examples set to its next one.
 */
export function otherExamples(op: Operation, base: unknown): Candidate[] {
  const schema = bodySchema(op);
  if (schema === undefined || typeof schema !== 'object') return [];
  const listed = Array.isArray(schema['examples']) ? (schema['examples'] as unknown[]).slice(1) : [];
  const bodies = [...(op.requestBody?.examples ?? []), ...listed];
  if (isRecord(base)) {
    const next = Object.entries(factsOf(schema).properties).flatMap(([name, property]) => {
      const examples = typeof property === 'object' && Array.isArray(property['examples']) ? (property['examples'] as unknown[]) : [];
      const at = examples.findIndex((e) => JSON.stringify(e) === JSON.stringify(base[name]));
      return examples.length > 1 && name in base ? [[name, examples[(at + 1) % examples.length]] as const] : [];
    });
    if (next.length > 0) bodies.push({ ...base, ...Object.fromEntries(next) });
  }
  return bodies.filter((body) => fitsBody(op, body)).map((body) => ({ kind: 'example', label: "the contract's other example", body }));
}

/** One value drawn from a schema (fast-check, seeded); undefined when none can be drawn. */
function drawn(schema: JsonSchema, seed: string, fallback?: unknown): unknown {
  const arbitrary = schemaArbitrary(schema, { random: new Random(seed) }, fallback);
  try {
    return arbitrary ? fc.sample(arbitrary, { seed: seedOf(seed), numRuns: 1 })[0] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bodies drawn from the schema: first the body with its reference fields drawn afresh (the part most likely
 * refused: a record it names that does not exist), then `count` whole bodies.
 */
export function drawnCandidates(op: Operation, base: unknown, fields: ReferenceField[], seed: string, count: number): Candidate[] {
  const schema = op.requestBody?.schema;
  if (schema === undefined) return [];
  const out: Candidate[] = [];
  const varied = isRecord(base) ? fields.filter((f) => f.name in base) : [];
  if (isRecord(base) && varied.length > 0) {
    const body = { ...base, ...Object.fromEntries(varied.map((f) => [f.name, drawn(f.schema, `${seed}:${f.name}`, base[f.name])])) };
    out.push({ kind: 'varied', label: `the body with ${varied.map((f) => f.name).join(', ')} drawn afresh`, body });
  }
  for (let n = 0; n < count; n++) {
    const body = drawn(schema, `${seed}:${n}`, base);
    if (body !== undefined) out.push({ kind: 'generated', label: 'a body drawn from its schema', body: withoutReadOnly(body, schema) });
  }
  return out.filter((c) => fitsBody(op, c.body));
}

/** The format a string property's name suggests where its schema names none: `email`, `homepageUrl`, `externalUuid`. */
const NAMED_FORMATS: Array<[RegExp, string]> = [
  [/e-?mail(address)?$/i, 'email'],
  [/(^|[a-z_-])(ur[il]|website|homepage)$/i, 'uri'],
  [/(^|[a-z_-])(uuid|guid)$/i, 'uuid'],
];

/**
 * The body with each string field of no declared format whose name suggests one (`email`) set to a value of that
 * format: a deployment may hold a rule its contract does not show (an address that must be an e-mail address), and
 * the record is what the run needs; nothing is judged of this request's answer. Undefined: no such field.
 */
export function namedCandidate(op: Operation, base: unknown, random: Random): Candidate | undefined {
  const schema = bodySchema(op);
  if (!isRecord(base) || schema === undefined) return undefined;
  const changed: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(factsOf(schema).properties)) {
    const facts = factsOf(property);
    if (!facts.types.includes('string') || facts.format !== undefined || facts.allowed) continue;
    const format = NAMED_FORMATS.find(([pattern]) => pattern.test(name))?.[1];
    const value = format ? formatRow(format)?.value(random) : undefined;
    if (value !== undefined && accepts(property, value) === true) changed[name] = value;
  }
  const names = Object.keys(changed);
  if (names.length === 0) return undefined;
  const body = { ...base, ...changed };
  return fitsBody(op, body) ? { kind: 'named', label: `the body with ${names.map((n) => `${n} as its name suggests (${JSON.stringify(changed[n])})`).join(', ')}`, body } : undefined;
}
