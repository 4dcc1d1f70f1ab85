/**
 * Validation of results.json against src/runner/schemas/results.schema.json (JSON Schema 2020-12), or, for a results.json
 * of schemaVersion 1, against src/runner/schemas/results-v1.schema.json.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export { RESULTS_SCHEMA_URL, RESULTS_V1_SCHEMA_URL } from '../schemas/index.ts';
import { RESULTS_SCHEMA_URL, RESULTS_V1_SCHEMA_URL } from '../schemas/index.ts';

type AddFormats = (ajv: Ajv2020, formats?: string[]) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

export interface ResultsSchemaError {
  instancePath: string;
  message: string;
}

const validators = new Map<URL, ValidateFunction>();

function validator(url: URL): ValidateFunction {
  let validate = validators.get(url);
  if (!validate) {
    const schema = JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time', 'date']);
    validate = ajv.compile(schema);
    validators.set(url, validate);
  }
  return validate;
}

/** Every place where data does not match the results schema of its schemaVersion; empty when it matches. */
export function validateResults(data: unknown): ResultsSchemaError[] {
  const v1 = (data as { schemaVersion?: unknown } | null)?.schemaVersion === 1;
  const fn = validator(v1 ? RESULTS_V1_SCHEMA_URL : RESULTS_SCHEMA_URL);
  if (fn(data)) return [];
  return (fn.errors ?? []).map((e) => {
    const params = e.params as Record<string, unknown>;
    const extra = e.keyword === 'additionalProperties' ? ` "${String(params['additionalProperty'])}"` : '';
    return { instancePath: e.instancePath || '/', message: `${e.message ?? 'invalid'}${extra}` };
  });
}
