/**
 * Foreign-trade reference numbers (seed §2.10, §2.11, §4.5).
 * Generate: one series per (direction, transactionType, isDomestic); Counter starts at 1 and increases by
 * one per call within the series; the series keeps its Id. LastReference is
 * `${direction}-${transactionType}-${isDomestic ? 'D' : 'F'}-${counter padded to 6 digits}`.
 * Validate: the request body is not shown, so no field name is assumed: any JSON body is accepted, and the
 * answer is IsValid true when some string anywhere in it (depth-first) equals an issued LastReference.
 * An empty body is IsValid false; a malformed one is 400 VALIDATION_ERROR.
 */
import { randomUUID } from 'node:crypto';
import { ok, validationError } from '../replies.ts';
import type { Operation, ReferenceSeries } from '../state.ts';
import { checkObjectBody, isMalformedJson, type FieldRule } from '../validate.ts';

const GENERATE: readonly FieldRule[] = [
  { name: 'direction', type: 'string', required: true },
  { name: 'isDomestic', type: 'boolean', required: true },
  { name: 'transactionType', type: 'string', required: true },
];

export const generateReferenceNumber: Operation = (req, { state }) => {
  const body = checkObjectBody(req, GENERATE);
  if (!body.ok) return body.reply;
  const direction = String(body.value['direction']);
  const transactionType = String(body.value['transactionType']);
  const isDomestic = body.value['isDomestic'] === true;
  const key = `${direction}\u0000${transactionType}\u0000${isDomestic}`;
  let series: ReferenceSeries | undefined = state.referenceSeries.get(key);
  if (series === undefined) {
    series = { id: randomUUID(), direction, transactionType, isDomestic, counter: 0, lastReference: '' };
    state.referenceSeries.set(key, series);
  }
  series.counter += 1;
  series.lastReference = `${direction}-${transactionType}-${isDomestic ? 'D' : 'F'}-${String(series.counter).padStart(6, '0')}`;
  state.issuedReferences.add(series.lastReference);
  return ok({
    Id: series.id,
    Description: `Foreign-trade reference number for ${direction} ${transactionType} (${isDomestic ? 'domestic' : 'foreign'})`,
    Counter: series.counter,
    LastReference: series.lastReference,
    Direction: direction,
  });
};

/** Depth-first over every string in a JSON value (iterative: deep nesting cannot overflow the stack). */
function* strings(root: unknown): Generator<string> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      yield value;
    } else if (typeof value === 'object' && value !== null) {
      const children = Array.isArray(value) ? value : Object.values(value);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
}

export const validateReferenceNumber: Operation = (req, { state }) => {
  if (isMalformedJson(req)) return validationError([{ field: '', message: 'request body is not valid JSON' }]);
  for (const s of strings(req.body)) {
    if (state.issuedReferences.has(s)) return ok({ IsValid: true });
  }
  return ok({ IsValid: false });
};
