// Helpers shared by the contract tests: reading the contract files and narrowing parsed YAML safely.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export const CUSTOMER_FILE = 'customer-service.openapi.yaml';
export const FOREIGN_TRADE_FILE = 'foreign-trade-service.openapi.yaml';
export const DESCRIPTION_FILES = [CUSTOMER_FILE, FOREIGN_TRADE_FILE] as const;
export type DescriptionFile = (typeof DESCRIPTION_FILES)[number];

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type Obj = Record<string, unknown>;

export function contractPath(name: string): string {
  return fileURLToPath(new URL(`../../contract/${name}`, import.meta.url));
}

export function readYaml(name: string): unknown {
  return parse(readFileSync(contractPath(name), 'utf8'));
}

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object; throws (failing the test) with the place when it is not one. */
export function obj(value: unknown, where: string): Obj {
  if (!isObj(value)) throw new Error(`${where}: expected an object, got ${JSON.stringify(value)}`);
  return value;
}

export function arr(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${where}: expected an array, got ${JSON.stringify(value)}`);
  return value;
}

export function str(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

export function strings(value: unknown, where: string): string[] {
  return arr(value, where).map((item, index) => str(item, `${where}[${index}]`));
}

/** The description file, dereferenced by swagger-parser (a fresh copy on each call). */
export async function dereferenced(file: DescriptionFile): Promise<Obj> {
  const api: unknown = await SwaggerParser.dereference(contractPath(file));
  return obj(api, file);
}

export interface OperationEntry {
  file: DescriptionFile;
  method: (typeof HTTP_METHODS)[number];
  path: string;
  operationId: string;
  operation: Obj;
  /** Path-level and operation-level parameters merged (operation-level wins), dereferenced. */
  parameters: Obj[];
}

export function operationsOf(file: DescriptionFile, api: Obj): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [path, item] of Object.entries(obj(api['paths'], `${file} paths`))) {
    const pathItem = obj(item, `${file} ${path}`);
    const shared = pathItem['parameters'] === undefined ? [] : arr(pathItem['parameters'], `${path} parameters`);
    for (const method of HTTP_METHODS) {
      if (pathItem[method] === undefined) continue;
      const operation = obj(pathItem[method], `${method} ${path}`);
      const own = operation['parameters'] === undefined ? [] : arr(operation['parameters'], `${method} ${path} parameters`);
      const merged = new Map<string, Obj>();
      for (const parameter of [...shared, ...own]) {
        const p = obj(parameter, `${method} ${path} parameter`);
        merged.set(`${str(p['in'], 'in')}:${str(p['name'], 'name')}`, p);
      }
      entries.push({
        file,
        method,
        path,
        operationId: str(operation['operationId'], `${method} ${path} operationId`),
        operation,
        parameters: [...merged.values()],
      });
    }
  }
  return entries;
}

export interface LoadedContract {
  /** Each description file, dereferenced. */
  apis: Map<DescriptionFile, Obj>;
  operations: OperationEntry[];
}

export async function loadContract(): Promise<LoadedContract> {
  const apis = new Map<DescriptionFile, Obj>();
  for (const file of DESCRIPTION_FILES) apis.set(file, await dereferenced(file));
  const operations = [...apis].flatMap(([file, api]) => operationsOf(file, api));
  return { apis, operations };
}

/** Walks a dotted/slashed path of keys inside a parsed document, failing with the path when a key is absent. */
export function at(root: unknown, ...keys: string[]): unknown {
  let current: unknown = root;
  const trail: string[] = [];
  for (const key of keys) {
    trail.push(key);
    const node = obj(current, trail.slice(0, -1).join('/') || '(root)');
    if (!(key in node)) throw new Error(`missing ${trail.join('/')}`);
    current = node[key];
  }
  return current;
}

// ajv-formats is CommonJS; its default export arrives as the module namespace under some loaders.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

/**
 * An Ajv (JSON Schema 2020-12, formats checked) that knows the components of both description files, so a
 * component schema is validated exactly as written, with its internal $refs.
 */
export function componentValidator(): (file: DescriptionFile, schemaName: string, data: unknown) => boolean {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateFormats: true });
  addFormats(ajv);
  // The schemas live under the description's `components`, which is not a JSON Schema keyword: declared so
  // strict mode accepts the wrapper (the component schemas themselves are checked strictly).
  ajv.addKeyword('components');
  // The annotations that say what the seed does not show (`x-type`, `x-required`: not shown) constrain nothing.
  for (const keyword of ['x-type', 'x-required']) ajv.addKeyword({ keyword, schemaType: 'string' });
  for (const file of DESCRIPTION_FILES) {
    const components = obj(at(readYaml(file), 'components'), `${file} components`);
    ajv.addSchema({ $id: `https://contract.test/${file}`, components }, undefined, undefined, false);
  }
  return (file, schemaName, data) => {
    const validate = ajv.getSchema(`https://contract.test/${file}#/components/schemas/${schemaName}`);
    if (!validate) throw new Error(`${file}: no schema ${schemaName}`);
    return validate(data) === true;
  };
}
