/**
 * Pact check: are the consumers' pacts compatible with the contract? No deployment is involved.
 *
 * For each HTTP interaction (prior art: PactFlow's swagger-mock-validator, which compares the same things
 * for Swagger 2 / OpenAPI 3.0):
 *  - the operation: method + path matched against the path templates segment by segment (a path written
 *    with a provider-state expression is stored with its example value, which is what is matched);
 *  - the request: credentials when the operation is secured; path parameters and query parameters against
 *    their schemas (a query parameter the operation does not document is an incompatibility); required
 *    query and header parameters present; the body against the request body schema (JSON Schema 2020-12,
 *    ajv + formats), and no body property the contract does not declare;
 *  - the response: the status documented (explicitly, by range or by `default`); a body only where the
 *    contract declares one; the expected body valid against the documented schema with `required` dropped
 *    (a consumer may expect fewer properties than the provider sends), and no property the contract does not
 *    declare, even where the schema allows additional properties (see schema-walk.ts).
 * Every incompatibility names the contract location `<file>#<json pointer>` (or the pact location).
 */
import { movedLocation, movesByFile } from '../description/source-pointers.ts';
import type { Contract, JsonSchema, Operation, PactInteractionResult, ParameterSpec, ResponseSpec } from '../model.ts';
import { SchemaValidator } from '../checks/schema.ts';
import { pointerToken, responseFor } from '../description/load.ts';
import { PactInputError } from './errors.ts';
import { matchOperation, operationsAtPath } from './match-operation.ts';
import type { PactBody, PactDocument, PactHttpInteraction } from './pact-file.ts';
import { readPactSources } from './sources.ts';
import { undeclaredProperties, withoutRequired } from './schema-walk.ts';

export interface CheckPactsOptions {
  /** Pact directories, files or URLs. Default ['contract/pacts']. */
  pacts?: string[];
  contract: Contract;
  allowNoPacts?: boolean;
}

export interface CheckPactsResult {
  mode: 'check';
  interactions: PactInteractionResult[];
}

type Mismatch = PactInteractionResult['mismatches'][number];

export async function checkPacts(opts: CheckPactsOptions): Promise<CheckPactsResult> {
  const sources = opts.pacts ?? ['contract/pacts'];
  const loaded = await readPactSources(sources);
  if (loaded.length === 0) {
    if (opts.allowNoPacts) return { mode: 'check', interactions: [] };
    throw new PactInputError(`no pacts found in ${sources.length > 0 ? sources.join(', ') : '(no sources given)'}: give pact files, directories or URLs with --pacts`);
  }
  const validator = new SchemaValidator();
  const interactions: PactInteractionResult[] = [];
  // Where a mismatch is in the contract, in the file the user gave (a Swagger 2.0 description is read as its conversion).
  const inSource = movesByFile(opts.contract.services);
  for (const { location, pact } of loaded) {
    for (const interaction of pact.interactions) {
      const started = performance.now();
      const checked = checkInteraction(pact, location, interaction, opts.contract, validator);
      const { operationId } = checked;
      const mismatches = checked.mismatches.map((m) => (m.location ? { ...m, location: movedLocation(inSource.get(m.location.slice(0, Math.max(0, m.location.indexOf('#')))), m.location) } : m));
      interactions.push({
        consumer: pact.consumer,
        provider: pact.provider,
        pactFile: location,
        description: interaction.description,
        providerStates: interaction.providerStates.map((s) => s.name),
        ...(operationId ? { operationId } : {}),
        outcome: mismatches.length > 0 ? 'failed' : 'passed',
        durationMs: Math.round(performance.now() - started),
        mismatches,
      });
    }
    for (const message of pact.messages) {
      interactions.push({
        consumer: pact.consumer,
        provider: pact.provider,
        pactFile: location,
        description: message.description,
        providerStates: [],
        outcome: 'skipped',
        durationMs: 0,
        mismatches: [{ message: `not checked: ${message.type} interactions are not HTTP`, location: `${location}#/interactions/${message.index}` }],
      });
    }
  }
  return { mode: 'check', interactions };
}

/** All incompatibilities of one interaction with the contract (pure, apart from the validator's cache). */
export function checkInteraction(
  pact: PactDocument,
  pactFile: string,
  interaction: PactHttpInteraction,
  contract: Contract,
  validator: SchemaValidator,
): { operationId?: string; mismatches: Mismatch[] } {
  const here = `${pactFile}#/interactions/${interaction.index}`;
  const { method, path } = interaction.request;
  const service = contract.services.find((s) => s.id === pact.provider);
  if (!service) {
    const known = contract.services.map((s) => s.id).join(', ');
    return {
      mismatches: [{ message: `provider "${pact.provider}" is not described by the contract (services: ${known || 'none'})`, location: `${pactFile}#/provider/name` }],
    };
  }
  const match = matchOperation(contract, pact.provider, method, path);
  if (!match) {
    const atPath = operationsAtPath(contract, pact.provider, path);
    const message =
      atPath.length > 0
        ? `${method} ${path}: the contract documents ${atPath.map((o) => o.method).join(', ')} on ${atPath[0]?.path ?? path}, not ${method}`
        : `${method} ${path}: no operation of ${pact.provider} matches this path`;
    const location = atPath[0] ? `${atPath[0].specFile}#/paths/${pointerToken(atPath[0].path)}` : `${here}/request/path`;
    return { mismatches: [{ message, location }] };
  }
  const op = match.operation;
  const at = (pointer: string) => `${op.specFile}#${pointer}`;
  const mismatches: Mismatch[] = [];
  const add = (message: string, location: string) => mismatches.push({ message, location });

  // --- request ----------------------------------------------------------------------------------------
  const headers = interaction.request.headers;
  if (op.secured && !headers['authorization']?.some((v) => v.trim() !== '')) {
    add(`request: ${op.operationId} requires credentials (Authorization: Bearer ...) but the pact's request sends none`, at(`${op.pointer}/security`));
  }
  for (const param of op.parameters.filter((p) => p.in === 'path')) {
    const value = match.pathParams[param.name];
    if (value === undefined) continue;
    for (const e of validateParam(validator, op, param, [value])) add(`request path parameter ${param.name}="${value}": ${e}`, at(`${param.pointer}/schema`));
  }
  const query = interaction.request.query;
  for (const [name, values] of Object.entries(query)) {
    const param = op.parameters.find((p) => p.in === 'query' && p.name === name);
    if (!param) {
      add(`request query parameter "${name}" is not documented by ${op.operationId}`, at(`${op.pointer}/parameters`));
      continue;
    }
    for (const e of validateParam(validator, op, param, values)) add(`request query parameter ${name}=${JSON.stringify(values.length === 1 ? values[0] : values)}: ${e}`, at(`${param.pointer}/schema`));
  }
  for (const param of op.parameters.filter((p) => p.required && (p.in === 'query' || p.in === 'header'))) {
    const present = param.in === 'query' ? param.name in query : param.name.toLowerCase() in headers;
    if (!present) add(`request: required ${param.in} parameter "${param.name}" is missing`, at(param.pointer));
  }
  checkRequestBody(interaction, op, validator, add);

  // --- response ---------------------------------------------------------------------------------------
  const status = interaction.response.status;
  const response = responseFor(op, status);
  if (!response) {
    const documented = op.responses.map((r) => r.status).join(', ') || 'none';
    add(`response status ${status} is not documented for ${op.operationId} (documented: ${documented})`, at(`${op.pointer}/responses`));
    return { operationId: op.operationId, mismatches };
  }
  checkResponseBody(interaction, op, response, validator, add);
  return { operationId: op.operationId, mismatches };
}

type Add = (message: string, location: string) => void;

function isJsonType(contentType: string): boolean {
  return /^application\/(.+\+)?json\b/i.test(contentType.trim());
}

function bodyContentType(body: PactBody, headers: Record<string, string[]>): string | undefined {
  return headers['content-type']?.[0] ?? body.contentType;
}

function checkRequestBody(interaction: PactHttpInteraction, op: Operation, validator: SchemaValidator, add: Add): void {
  const body = interaction.request.body;
  const spec = op.requestBody;
  const at = (pointer: string) => `${op.specFile}#${pointer}`;
  if (!body) {
    if (spec?.required) add(`request: ${op.operationId} requires a body but the pact's request has none`, at(spec.pointer.replace(/\/content\/.*$/, '')));
    return;
  }
  if (!spec) {
    add(`request: the pact sends a body but ${op.operationId} declares no request body`, at(op.pointer));
    return;
  }
  const contentType = bodyContentType(body, interaction.request.headers);
  if (contentType && isJsonType(contentType) !== isJsonType(spec.contentType)) {
    add(`request: content type ${contentType} is not the documented ${spec.contentType}`, at(spec.pointer.replace(/\/schema$/, '')));
    return;
  }
  if (!body.json) return;
  for (const e of validator.validate(`${op.specFile}#${spec.pointer}`, spec.schema, body.content)) {
    add(`request body: ${e.message} (schema path ${e.schemaPath.replace(/^#/, '')})`, at(spec.pointer));
  }
  for (const u of undeclaredProperties(body.content, spec.schema)) {
    add(`request body: property ${u.instancePath} is not declared by the contract${u.schemaPath ? ` (schema path ${u.schemaPath})` : ''}`, at(spec.pointer));
  }
}

function checkResponseBody(
  interaction: PactHttpInteraction,
  op: Operation,
  response: ResponseSpec,
  validator: SchemaValidator,
  add: Add,
): void {
  const body = interaction.response.body;
  if (!body || (body.json && body.content === undefined)) return;
  const at = (pointer: string) => `${op.specFile}#${pointer}`;
  const label = response.status === 'default' ? `status ${interaction.response.status} (documented by default)` : `status ${response.status}`;
  if (response.contentTypes.length === 0) {
    add(`response body: the consumer expects a body, but the contract declares none for ${label} of ${op.operationId}`, at(response.pointer));
    return;
  }
  const contentType = bodyContentType(body, interaction.response.headers);
  const jsonTypes = response.contentTypes.filter(isJsonType);
  if (contentType && !response.contentTypes.some((t) => t.split(';')[0]?.trim().toLowerCase() === contentType.split(';')[0]?.trim().toLowerCase())) {
    if (!(isJsonType(contentType) && jsonTypes.length > 0)) {
      add(`response: content type ${contentType} is not documented for ${label} (documented: ${response.contentTypes.join(', ')})`, at(`${response.pointer}/content`));
      return;
    }
  }
  if (!body.json || response.schema === undefined) return;
  const mediaType = jsonTypes[0] ?? response.contentTypes[0] ?? 'application/json';
  const schemaPointer = `${response.pointer}/content/${pointerToken(mediaType)}/schema`;
  const relaxed: JsonSchema = withoutRequired(response.schema);
  for (const e of validator.validate(`${op.specFile}#${schemaPointer}#without-required`, relaxed, body.content)) {
    add(`response body: ${e.message} (schema path ${e.schemaPath.replace(/^#/, '')})`, at(schemaPointer));
  }
  for (const u of undeclaredProperties(body.content, response.schema)) {
    add(
      `response body: the consumer expects property ${u.instancePath}, which the contract does not declare for ${label} of ${op.operationId}` +
        `${u.schemaPath ? ` (schema path ${u.schemaPath})` : ''}`,
      at(schemaPointer),
    );
  }
}

/** Validates a path or query parameter's text values, turned into the types its schema declares. */
function validateParam(validator: SchemaValidator, op: Operation, param: ParameterSpec, values: string[]): string[] {
  const schema = param.schema;
  const types = typeof schema === 'object' ? typesOf(schema) : [];
  if (types.includes('object')) return []; // serialisation of objects into a path or query is not modelled
  let value: unknown;
  if (types.includes('array')) {
    const items = typeof schema === 'object' && typeof schema['items'] === 'object' ? (schema['items'] as JsonSchema) : {};
    const itemTypes = typeof items === 'object' ? typesOf(items) : [];
    const parts = values.length === 1 ? (values[0] ?? '').split(',') : values;
    value = parts.map((v) => coerce(v, itemTypes));
  } else {
    if (values.length > 1) return [`given ${values.length} times, but the parameter is not an array`];
    value = coerce(values[0] ?? '', types);
  }
  return validator.validate(`${op.specFile}#${param.pointer}/schema`, schema, value).map((e) => e.message.replace(/^\(root\) /, ''));
}

function typesOf(schema: Record<string, unknown>): string[] {
  const t = schema['type'];
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
}

function coerce(text: string, types: string[]): unknown {
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.includes('null') && text === '') return null;
  return text;
}
