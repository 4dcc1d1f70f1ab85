import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema, SchemaErrorDetail } from '../model.ts';

// ajv-formats is CommonJS; its default export arrives as the module namespace under some loaders.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const INT32 = { min: -2147483648, max: 2147483647 };

/** JSON Schema 2020-12 validation with formats; each schema is compiled once and cached by key. */
export class SchemaValidator {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly byObject = new WeakMap<object, ValidateFunction>();
  private readonly byContent = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= INT32.min && n <= INT32.max,
    });
    this.ajv.addFormat('int64', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && Number.isSafeInteger(n),
    });
    // Formats OpenAPI names that carry no constraint here.
    for (const format of ['float', 'double', 'byte', 'binary', 'password']) this.ajv.addFormat(format, true);
  }

  /** Validates data against the schema compiled under `key` (compiled on first use). */
  validate(key: string, schema: JsonSchema, data: unknown): SchemaErrorDetail[] {
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.compiled(schema);
      this.cache.set(key, fn);
    }
    let valid: boolean;
    try {
      valid = fn(data) as boolean;
    } catch (error) {
      // A body ajv cannot walk (the call stack runs out) is not valid: say why, never throw.
      return [{ instancePath: '', schemaPath: '', message: `(root) could not be validated: ${(error as Error).message}` }];
    }
    if (valid) return [];
    return (fn.errors ?? []).map((e) => ({
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      message: `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${
        e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : ''
      }`,
    }));
  }

  /** One compiled function per distinct schema: the same object, or the same content under another key. */
  private compiled(schema: JsonSchema): ValidateFunction {
    if (typeof schema === 'boolean') return this.ajv.compile(schema);
    const same = this.byObject.get(schema);
    if (same) return same;
    let text: string | undefined;
    try {
      text = JSON.stringify(schema);
    } catch {
      // a recursive schema: shared by object identity only
    }
    let fn = text === undefined ? undefined : this.byContent.get(text);
    if (!fn) {
      fn = this.ajv.compile(stripIds(schema));
      if (text !== undefined) this.byContent.set(text, fn);
    }
    this.byObject.set(schema, fn);
    return fn;
  }

  get compiledCount(): number {
    return this.cache.size;
  }
}

/** Dereferenced schemas may carry $id/$schema from their source; drop them so one schema can be compiled twice. */
function stripIds(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return rest;
}
