import { readFile } from 'node:fs/promises';
import { CORE_SCHEMA, load } from 'js-yaml';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import { ContractError } from './errors.ts';
import { isKnownValid, rememberValid, validityKey } from './validity-cache.ts';

/**
 * YAML 1.2 core schema (no timestamps, no 1.1 booleans), with js-yaml: the parser the OpenAPI loader already
 * uses, several times faster to load and to run than a second one at start-up.
 */
export function parseYaml(text: string): unknown {
  return load(text, { schema: CORE_SCHEMA });
}

/** Compiled when a file is first not known to be valid (a run on files validated before never loads ajv here). */
let ajv: Ajv2020 | undefined;
async function validator(): Promise<Ajv2020> {
  if (!ajv) {
    const { Ajv2020 } = await import('./ajv.ts');
    ajv ??= new Ajv2020({ allErrors: false, strict: false });
  }
  return ajv;
}

/** Reads a YAML data file and validates it against a JSON Schema; a problem is a one-line ContractError. */
export async function readValidatedYaml<T>(file: string, schemaFile: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new ContractError(file, '', 'file not found');
  }
  let data: unknown;
  try {
    data = parseYaml(text) ?? null;
  } catch (error) {
    throw new ContractError(file, '', `not valid YAML: ${String((error as Error).message).split('\n')[0]}`);
  }
  const schemaText = await readFile(schemaFile, 'utf8');
  // Content already validated against this very schema: no need to compile the schema again.
  const key = validityKey('yaml', schemaText, text);
  if (isKnownValid(key)) return data as T;
  const schema = JSON.parse(schemaText) as Record<string, unknown>;
  const ajv = await validator();
  const validate = ajv.getSchema(String(schema['$id'])) ?? ajv.compile(schema);
  if (!validate(data)) {
    const error = validate.errors?.[0];
    throw new ContractError(file, error?.instancePath ?? '', describeError(error));
  }
  rememberValid(key);
  return data as T;
}

function describeError(error: ErrorObject | undefined): string {
  if (!error) return 'invalid';
  if (error.keyword === 'additionalProperties') {
    return `unknown key "${String((error.params as { additionalProperty: string }).additionalProperty)}"`;
  }
  if (error.keyword === 'required') {
    return `missing key "${String((error.params as { missingProperty: string }).missingProperty)}"`;
  }
  if (error.keyword === 'enum' || error.keyword === 'const') {
    const allowed = (error.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [
      (error.params as { allowedValue?: unknown }).allowedValue,
    ];
    return `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return error.message ?? 'invalid';
}
