/**
 * conformance.config.yaml: the options of a run kept in the repository that uses the suite. Keys are the long
 * flags in camelCase (a few read better in the plural: servers, headers, secretHeaders). The file is validated
 * against config.schema.json; every problem is one line naming the file and the key.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { InputError } from '../description/errors.ts';

export const DEFAULT_CONFIG_FILE = 'conformance.config.yaml';

/** File keys that differ from the option's attribute name (exported for the options table in docs/options.md). */
export const ALIASES: Record<string, string> = { servers: 'server', headers: 'header', secretHeaders: 'secretHeader', identities: 'identity' };

/** Keys whose values are file paths, resolved against the config file's directory. */
const PATHS = new Set(['clientCert', 'clientKey', 'caCert', 'profile', 'examples', 'catalog', 'waivers', 'out', 'suites', 'spec', 'deploymentSpec', 'baseline']);

export interface ConfigFile {
  path: string;
  /** Values by option attribute name. */
  values: Record<string, unknown>;
  /** The key each attribute came from in the file (for messages). */
  keys: Record<string, string>;
}

/** The schema's validator, compiled when a config file is first read (a run without one never loads ajv). */
let validator: { keys: string; validate: ValidateFunction } | undefined;
async function configValidator(urlKeys: readonly string[]): Promise<ValidateFunction> {
  const keys = urlKeys.join(',');
  if (validator?.keys !== keys) {
    const [{ Ajv2020 }, text] = await Promise.all([import('../description/ajv.ts'), readFile(new URL('./config.schema.json', import.meta.url), 'utf8')]);
    // The base-URL options packs add are keys too (e.g. a pack's --orders-base-url: ordersBaseUrl).
    const schema = JSON.parse(text) as { properties: Record<string, unknown> };
    for (const key of urlKeys) schema.properties[key] ??= { $ref: '#/$defs/url' };
    validator = { keys, validate: new Ajv2020({ allErrors: false, strict: false }).compile(schema) };
  }
  return validator.validate;
}

/** Loads the named file, or conformance.config.yaml in cwd when present; undefined when there is none. */
export async function loadConfigFile(named: string | undefined, cwd: string, urlKeys: readonly string[] = []): Promise<ConfigFile | undefined> {
  const path = resolve(cwd, named ?? DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (named === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`config file ${named ?? path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const shown = named ?? DEFAULT_CONFIG_FILE;
  const [{ parse }, validate] = await Promise.all([import('../description/yaml-document.ts'), configValidator(urlKeys)]);
  let doc: unknown;
  try {
    doc = parse(text) ?? {};
  } catch (error) {
    throw new InputError(`${shown}: not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!validate(doc)) {
    const e = validate.errors?.[0];
    const key = e?.instancePath.replace(/^\//, '').replace(/\//g, '.') ?? '';
    if (e?.keyword === 'additionalProperties' && key === '') {
      throw new InputError(`${shown}: unknown key "${String(e.params['additionalProperty'])}" (keys are the long flags in camelCase, e.g. baseUrl, timeout, headers)`);
    }
    if (e?.keyword === 'pattern' && e.params['pattern'] === '^https?://') {
      // A URL key (baseUrl, servers.<id>, proxy, …) whose value is not http(s): said like the flag's own error.
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(String(valueAt(doc, e.instancePath)))?.[1];
      throw new InputError(`${shown}: ${key}: must be an http:// or https:// URL (${scheme ? `the scheme is ${scheme}` : 'this is not a URL'})`);
    }
    throw new InputError(`${shown}: ${key || '(top level)'}: ${e?.message ?? 'invalid'}`);
  }
  const values: Record<string, unknown> = {};
  const keys: Record<string, string> = {};
  const base = dirname(path);
  const rel = (p: unknown) => (typeof p === 'string' && !isAbsolute(p) && !/^https?:\/\//.test(p) ? resolve(base, p) : p);
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    const attribute = ALIASES[key] ?? key;
    if (attribute in values) throw new InputError(`${shown}: ${key}: given twice (also as ${keys[attribute]})`);
    // `profile: generic` names the built-in generic profile, not a file.
    values[attribute] = PATHS.has(attribute) && !(attribute === 'profile' && value === 'generic') ? (Array.isArray(value) ? value.map(rel) : rel(value)) : value;
    keys[attribute] = key;
  }
  return { path: shown, values, keys };
}

/** The value at a JSON pointer of a parsed document (an ajv error's instancePath). */
function valueAt(doc: unknown, pointer: string): unknown {
  let value = doc;
  for (const token of pointer.split('/').slice(1)) {
    value = (value as Record<string, unknown> | undefined)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}
