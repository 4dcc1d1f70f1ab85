/** Validation of results.json against contract/results.schema.json (JSON Schema 2020-12). */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export const RESULTS_SCHEMA_URL = new URL('../../../contract/results.schema.json', import.meta.url);

type AddFormats = (ajv: Ajv2020, formats?: string[]) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

export interface ResultsSchemaError {
  instancePath: string;
  message: string;
}

let validate: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!validate) {
    const schema = JSON.parse(readFileSync(RESULTS_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time', 'date']);
    validate = ajv.compile(schema);
  }
  return validate;
}

/** Every place where data does not match the results schema; empty when it matches. */
export function validateResults(data: unknown): ResultsSchemaError[] {
  const fn = validator();
  if (fn(data)) return [];
  return (fn.errors ?? []).map((e) => {
    const params = e.params as Record<string, unknown>;
    const extra = e.keyword === 'additionalProperties' ? ` "${String(params['additionalProperty'])}"` : '';
    return { instancePath: e.instancePath || '/', message: `${e.message ?? 'invalid'}${extra}` };
  });
}
