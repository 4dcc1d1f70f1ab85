/**
 * The table of rules: each change the comparison reports has a stable id (oasdiff's id where the meaning is the
 * same, so that agreement can be measured), a level, a direction and an area, and a sentence.
 *
 * Schema rules come in families: one suffix (`max-length-decreased`) under each scope where a schema appears
 * (`request-body`, `request-property`, `request-parameter`, `request-parameter-property`, `response-body`,
 * `response-property`, `response-header`); the suffix's level depends on the direction. A request narrowed breaks
 * old clients (what they send is refused); a response widened breaks them (what they read is not what they expect).
 */
import type { Area, Direction, Level, Rule } from './types.ts';

const B = 'breaking' as const;
const W = 'warning' as const;
const I = 'info' as const;

/** Suffix -> [level in a request, level in a response, sentence]. `{s}` is the subject, `{from}`/`{to}` the values. */
const SCHEMA: Record<string, [Level, Level, string]> = {
  'type-changed': [B, B, '{s}: type changed from {from} to {to}'],
  'type-generalized': [I, B, '{s}: type widened from {from} to {to}'],
  'type-compatible': [I, I, '{s}: type changed from {from} to {to} (the text reads as either)'],
  'type-specialized': [B, I, '{s}: type narrowed from {from} to {to}'],
  'list-of-types-narrowed': [B, I, '{s}: types narrowed from {from} to {to}'],
  'list-of-types-widened': [I, B, '{s}: types widened from {from} to {to}'],
  'became-nullable': [I, B, '{s}: may now be null'],
  'became-not-nullable': [B, I, '{s}: may no longer be null'],
  'enum-value-removed': [B, I, '{s}: enum value {from} removed'],
  'enum-value-added': [I, W, '{s}: enum value {to} added'],
  'became-enum': [B, I, '{s}: restricted to the values {to}'],
  'const-added': [B, I, '{s}: fixed to the value {to}'],
  'const-removed': [I, B, '{s}: no longer fixed to {from}'],
  'const-changed': [B, B, '{s}: fixed value changed from {from} to {to}'],
  'format-added': [B, I, '{s}: format {to} now required'],
  'format-changed': [B, W, '{s}: format changed from {from} to {to}'],
  'format-removed': [I, W, '{s}: format {from} no longer promised'],
  'pattern-added': [B, I, '{s}: pattern {to} now required'],
  'pattern-changed': [W, I, '{s}: pattern changed from {from} to {to}'],
  'pattern-removed': [I, I, '{s}: pattern {from} no longer required'],
  'default-value-added': [I, I, '{s}: default {to} added'],
  'default-value-removed': [I, I, '{s}: default {from} removed'],
  'default-value-changed': [I, I, '{s}: default changed from {from} to {to}'],
  'one-of-added': [I, B, '{s}: a new oneOf alternative ({to})'],
  'one-of-removed': [B, I, '{s}: the oneOf alternative {from} removed'],
  'any-of-added': [I, I, '{s}: a new anyOf alternative ({to})'],
  'any-of-removed': [B, I, '{s}: the anyOf alternative {from} removed'],
  'wrapped-in-one-of': [B, B, '{s}: now wrapped in a oneOf'],
  'additional-properties-closed': [W, I, '{s}: properties not listed are no longer allowed'],
  'additional-properties-opened': [I, W, '{s}: properties not listed are now allowed'],
  'discriminator-added': [I, I, '{s}: discriminator added'],
  'discriminator-removed': [I, I, '{s}: discriminator removed'],
  'discriminator-property-name-changed': [I, I, '{s}: discriminator property changed from {from} to {to}'],
  'discriminator-mapping-added': [I, I, '{s}: discriminator mapping {to} added'],
  'discriminator-mapping-deleted': [I, I, '{s}: discriminator mapping {from} deleted'],
  'discriminator-mapping-changed': [I, I, '{s}: discriminator mapping {from} changed'],
  'deprecated': [I, I, '{s}: deprecated'],
  'reactivated': [I, I, '{s}: no longer deprecated'],
  'description-changed': [I, I, '{s}: description changed'],
  'read-only-changed': [I, I, '{s}: readOnly changed from {from} to {to}'],
  'write-only-changed': [I, I, '{s}: writeOnly changed from {from} to {to}'],
};

/** Bounds: the keyword's suffix stem and whether it is an upper bound. */
export const BOUNDS: Array<[keyword: string, stem: string, upper: boolean]> = [
  ['maximum', 'max', true],
  ['exclusiveMaximum', 'exclusive-max', true],
  ['maxLength', 'max-length', true],
  ['maxItems', 'max-items', true],
  ['maxContains', 'max-contains', true],
  ['maxProperties', 'max-properties', true],
  ['minimum', 'min', false],
  ['exclusiveMinimum', 'exclusive-min', false],
  ['minLength', 'min-length', false],
  ['minItems', 'min-items', false],
  ['minContains', 'min-contains', false],
  ['minProperties', 'min-properties', false],
];
for (const [, stem, upper] of BOUNDS) {
  const narrow = upper ? 'decreased' : 'increased';
  const widen = upper ? 'increased' : 'decreased';
  SCHEMA[`${stem}-${narrow}`] = [B, I, `{s}: ${stem.replace(/-/g, ' ')} ${narrow} from {from} to {to}`];
  SCHEMA[`${stem}-${widen}`] = [I, B, `{s}: ${stem.replace(/-/g, ' ')} ${widen} from {from} to {to}`];
  // A bound set where there was none: it breaks only clients that sent beyond it (oasdiff: WARN).
  SCHEMA[`${stem}-set`] = [W, I, `{s}: ${stem.replace(/-/g, ' ')} {to} set`];
  SCHEMA[`${stem}-unset`] = [I, B, `{s}: ${stem.replace(/-/g, ' ')} {from} no longer promised`];
}

/** Subschema keywords compared by presence: added narrows a request, removed widens a response. */
export const SUBSCHEMA_KEYWORDS: Array<[keyword: string, stem: string]> = [
  ['if', 'if'],
  ['then', 'then'],
  ['else', 'else'],
  ['contains', 'contains'],
  ['dependentRequired', 'dependent-required'],
  ['dependentSchemas', 'dependent-schema'],
  ['patternProperties', 'pattern-property'],
  ['propertyNames', 'property-names'],
  ['unevaluatedItems', 'unevaluated-items'],
  ['unevaluatedProperties', 'unevaluated-properties'],
  ['contentSchema', 'content-schema'],
];
for (const [, stem] of SUBSCHEMA_KEYWORDS) {
  SCHEMA[`${stem}-added`] = [B, I, `{s}: ${stem.replace(/-/g, ' ')} {to} added`];
  SCHEMA[`${stem}-removed`] = [I, B, `{s}: ${stem.replace(/-/g, ' ')} {from} removed`];
  SCHEMA[`${stem}-changed`] = [B, B, `{s}: ${stem.replace(/-/g, ' ')} changed from {from} to {to}`];
}
// prefixItems: oasdiff rates a removed prefix as narrowing a request (the positions lose their own schema).
SCHEMA['prefix-items-added'] = [I, B, '{s}: prefixItems {to} added'];
SCHEMA['prefix-items-removed'] = [B, I, '{s}: prefixItems {from} removed'];
SCHEMA['content-media-type-changed'] = [B, B, '{s}: contentMediaType changed from {from} to {to}'];
SCHEMA['content-encoding-changed'] = [B, B, '{s}: contentEncoding changed from {from} to {to}'];

export const SCOPES = [
  'request-body',
  'request-property',
  'request-parameter',
  'request-parameter-property',
  'response-body',
  'response-property',
  'response-header',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Rules that are not a schema family: [id, level, direction, area, sentence]. */
const OTHER: Array<[string, Level, Direction, Area, string]> = [
  ['endpoint-added', I, 'none', 'operation', 'operation added'],
  ['api-path-removed-without-deprecation', B, 'none', 'path', 'path {s} removed without being deprecated first'],
  ['api-path-removed-with-deprecation', I, 'none', 'path', 'path {s} removed after its deprecation'],
  ['api-path-removed-before-sunset', B, 'none', 'path', 'path {s} removed before its sunset date {from}'],
  ['api-removed-without-deprecation', B, 'none', 'operation', 'operation removed without being deprecated first'],
  ['api-removed-with-deprecation', I, 'none', 'operation', 'operation removed after its deprecation'],
  ['api-removed-before-sunset', B, 'none', 'operation', 'operation removed before its sunset date {from}'],
  ['endpoint-deprecated', W, 'none', 'operation', 'operation deprecated without a sunset date: clients cannot plan the move'],
  ['endpoint-deprecated-with-sunset', I, 'none', 'operation', 'operation deprecated, sunset {to}'],
  ['endpoint-reactivated', I, 'none', 'operation', 'operation no longer deprecated'],
  ['api-deprecated-sunset-parse', B, 'none', 'operation', 'the sunset date {to} of the deprecated operation cannot be read'],
  ['sunset-deleted', B, 'none', 'operation', 'the sunset date {from} of the deprecated operation was deleted'],
  ['api-sunset-date-changed-too-small', B, 'none', 'operation', 'the sunset date moved earlier, from {from} to {to}'],
  ['api-stability-decreased', B, 'none', 'operation', 'stability decreased from {from} to {to}'],
  ['api-invalid-stability-level', B, 'none', 'operation', 'stability level {to} is not one of draft, alpha, beta, stable'],
  ['api-operation-id-removed', W, 'none', 'operation', 'operation id renamed from {from} to {to}: generated clients change their method names'],
  ['api-operation-id-added', I, 'none', 'operation', 'operation id {to} added'],
  ['api-tag-removed', I, 'none', 'operation', 'tag {from} removed'],
  ['api-tag-added', I, 'none', 'operation', 'tag {to} added'],
  ['webhook-removed', B, 'none', 'operation', 'webhook {s} removed'],
  ['webhook-added', I, 'none', 'operation', 'webhook {s} added'],
  ['api-schema-removed', I, 'none', 'operation', 'component schema {s} removed'],
  ['new-required-request-parameter', B, 'request', 'parameter', 'new required {s}: old clients do not send it'],
  ['new-optional-request-parameter', I, 'request', 'parameter', 'new optional {s}'],
  ['new-request-path-parameter', B, 'request', 'parameter', 'new path {s}'],
  ['new-required-request-default-parameter-to-existing-path', B, 'request', 'parameter', "new required {s} on all the path's operations: old clients do not send it"],
  ['new-optional-request-default-parameter-to-existing-path', I, 'request', 'parameter', "new optional {s} on all the path's operations"],
  ['new-required-request-header-property', B, 'request', 'header', 'new required {s}'],
  ['request-header-property-became-required', B, 'request', 'header', '{s} became required'],
  ['request-header-property-became-enum', B, 'request', 'header', '{s}: restricted to the values {to}'],
  ['request-parameter-removed', W, 'request', 'parameter', '{s} removed: old clients still send it'],
  ['request-parameter-removed-with-deprecation', I, 'request', 'parameter', '{s} removed after its deprecation'],
  ['request-parameter-removed-before-sunset', B, 'request', 'parameter', '{s} removed before its sunset date {from}'],
  ['request-parameter-became-required', B, 'request', 'parameter', '{s} became required: old clients may not send it'],
  ['request-parameter-became-optional', I, 'request', 'parameter', '{s} became optional'],
  ['request-parameter-deprecated', I, 'request', 'parameter', '{s} deprecated'],
  ['request-parameter-reactivated', I, 'request', 'parameter', '{s} no longer deprecated'],
  ['request-parameter-sunset-deleted', B, 'request', 'parameter', 'the sunset date {from} of the deprecated {s} was deleted'],
  ['request-parameter-sunset-date-changed-too-small', B, 'request', 'parameter', 'the sunset date of {s} moved earlier, from {from} to {to}'],
  ['request-parameter-x-extensible-enum-value-removed', B, 'request', 'parameter', '{s}: extensible enum value {from} removed'],
  ['request-property-x-extensible-enum-value-removed', B, 'request', 'request body', '{s}: extensible enum value {from} removed'],
  // A query or header value is text: a property's type in it is a parsing hint (oasdiff: WARN).
  ['request-parameter-property-type-changed', W, 'request', 'parameter', '{s}: type changed from {from} to {to}'],
  ['request-parameter-default-value-changed', B, 'request', 'parameter', '{s}: default changed from {from} to {to}: old clients that leave it out get another behaviour'],
  ['request-parameter-default-value-added', B, 'request', 'parameter', '{s}: default {to} added'],
  ['request-parameter-default-value-removed', B, 'request', 'parameter', '{s}: default {from} removed'],
  ['request-body-added-required', B, 'request', 'request body', 'a required request body added: old clients do not send it'],
  ['request-body-added-optional', I, 'request', 'request body', 'an optional request body added'],
  ['request-body-removed', B, 'request', 'request body', 'the request body removed: what old clients send is no longer described'],
  ['request-body-became-required', B, 'request', 'request body', 'the request body became required'],
  ['request-body-became-optional', I, 'request', 'request body', 'the request body became optional'],
  ['request-body-media-type-added', I, 'request', 'media type', 'request media type {to} added'],
  ['request-body-media-type-removed', B, 'request', 'media type', 'request media type {from} removed: old clients still send it'],
  ['request-body-media-type-schema-added', B, 'request', 'media type', 'request {s}: a schema added'],
  ['request-body-media-type-schema-removed', I, 'request', 'media type', 'request {s}: its schema removed'],
  ['new-required-request-property', B, 'request', 'request body', 'new required {s}: old clients do not send it'],
  ['new-required-request-property-with-default', B, 'request', 'request body', 'new required {s} (with a default)'],
  ['new-optional-request-property', I, 'request', 'request body', 'new optional {s}'],
  ['request-property-became-required', B, 'request', 'request body', '{s} became required: old clients may not send it'],
  ['request-property-became-required-with-default', B, 'request', 'request body', '{s} became required (it has a default)'],
  ['request-property-became-optional', I, 'request', 'request body', '{s} became optional'],
  ['request-property-removed', W, 'request', 'request body', '{s} removed: old clients still send it'],
  ['request-required-property-became-read-only', I, 'request', 'request body', '{s} became read-only'],
  ['request-required-property-became-write-only', I, 'request', 'request body', '{s} became write-only'],
  ['request-optional-property-became-read-only', I, 'request', 'request body', '{s} became read-only'],
  ['request-optional-property-became-write-only', I, 'request', 'request body', '{s} became write-only'],
  ['response-required-property-removed', B, 'response', 'response body', '{s} removed: old clients read it'],
  ['response-optional-property-removed', W, 'response', 'response body', '{s} (optional) removed'],
  ['response-required-property-added', I, 'response', 'response body', 'new required {s}'],
  ['response-optional-property-added', I, 'response', 'response body', 'new optional {s}'],
  ['response-property-became-optional', B, 'response', 'response body', '{s} became optional: old clients expect it always'],
  ['response-property-became-required', I, 'response', 'response body', '{s} became required'],
  ['response-required-write-only-property-removed', I, 'response', 'response body', '{s} (write-only) removed'],
  ['response-optional-write-only-property-removed', I, 'response', 'response body', '{s} (write-only) removed'],
  ['response-write-only-property-became-optional', I, 'response', 'response body', '{s} (write-only) became optional'],
  ['response-success-status-removed', B, 'response', 'status', 'success status {from} removed: old clients expect it'],
  ['response-success-status-added', I, 'response', 'status', 'success status {to} added'],
  ['response-non-success-status-removed', I, 'response', 'status', 'status {from} removed'],
  ['response-non-success-status-added', I, 'response', 'status', 'status {to} added'],
  ['response-media-type-removed', B, 'response', 'media type', 'response media type {from} of {s} removed: old clients ask for it'],
  ['response-media-type-added', I, 'response', 'media type', 'response media type {to} of {s} added'],
  ['response-media-type-name-generalized', B, 'response', 'media type', 'response media type of {s} changed from {from} to the more general {to}'],
  ['response-media-type-name-specialized', I, 'response', 'media type', 'response media type of {s} changed from {from} to the more specific {to}'],
  ['response-body-media-type-schema-added', I, 'response', 'media type', 'response {s}: a schema added'],
  ['response-body-media-type-schema-removed', W, 'response', 'media type', 'response {s}: its schema removed'],
  ['required-response-header-removed', B, 'response', 'header', 'required response header {s} removed: old clients read it'],
  ['optional-response-header-removed', W, 'response', 'header', 'optional response header {s} removed'],
  ['response-header-became-optional', B, 'response', 'header', 'response header {s} became optional'],
  ['response-header-added', I, 'response', 'header', 'response header {s} added'],
  ['api-security-added', B, 'request', 'security', 'security {to} now required: old clients that call it without it are refused'],
  ['api-security-removed', I, 'request', 'security', 'security {from} no longer required'],
  ['api-security-alternative-removed', B, 'request', 'security', 'the security alternative {from} removed: clients that use it are refused'],
  ['api-security-alternative-added', I, 'request', 'security', 'the security alternative {to} added'],
  ['api-security-scope-added', B, 'request', 'security', 'scope {to} now required by {s}: tokens without it are refused'],
  ['api-security-scope-removed', I, 'request', 'security', 'scope {from} no longer required by {s}'],
  ['api-global-security-added', B, 'request', 'security', 'global security {to} now required: old clients that call without it are refused'],
  ['api-global-security-removed', I, 'request', 'security', 'global security {from} no longer required'],
  ['api-global-security-scope-added', B, 'request', 'security', 'scope {to} now required by the global {s}'],
  ['api-global-security-scope-removed', I, 'request', 'security', 'scope {from} no longer required by the global {s}'],
  ['api-security-component-added', I, 'none', 'security', 'security scheme {s} added'],
  ['api-security-component-removed', I, 'none', 'security', 'security scheme {s} removed'],
  ['api-security-component-type-changed', I, 'none', 'security', 'security scheme {s}: type changed from {from} to {to}'],
];

const DIRECTION_OF = (scope: Scope): Direction => (scope.startsWith('request') ? 'request' : 'response');
const AREA_OF: Record<Scope, Area> = {
  'request-body': 'request body',
  'request-property': 'request body',
  'request-parameter': 'parameter',
  'request-parameter-property': 'parameter',
  'response-body': 'response body',
  'response-property': 'response body',
  'response-header': 'header',
};

interface RuleEntry extends Rule {
  sentence: string;
}

function build(): Map<string, RuleEntry> {
  const rules = new Map<string, RuleEntry>();
  for (const [id, level, direction, area, sentence] of OTHER) rules.set(id, { id, level, direction, area, sentence });
  for (const scope of SCOPES) {
    const direction = DIRECTION_OF(scope);
    for (const [suffix, [request, response, sentence]] of Object.entries(SCHEMA)) {
      const id = `${scope}-${suffix}`;
      if (!rules.has(id)) rules.set(id, { id, level: direction === 'request' ? request : response, direction, area: AREA_OF[scope], sentence });
    }
  }
  // oasdiff's names for a few of the family's members.
  rules.set('response-mediatype-enum-value-removed', { ...rules.get('response-body-enum-value-removed')!, id: 'response-mediatype-enum-value-removed' });
  return rules;
}

export const RULES: ReadonlyMap<string, RuleEntry> = build();

/** The rule of an id; an id not in the table is a programming error. */
export function rule(id: string): RuleEntry {
  const r = RULES.get(id);
  if (!r) throw new Error(`compat: no rule ${id}`);
  return r;
}

/** The sentence of a rule with its subject and values filled in. */
export function sentence(id: string, values: { s?: string; from?: string; to?: string }): string {
  return rule(id).sentence.replace(/\{(s|from|to)\}/g, (_, k: 's' | 'from' | 'to') => values[k] ?? '');
}
