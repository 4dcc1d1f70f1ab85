import { readValidatedYaml } from './yaml-file.ts';

/** contract/profile.yaml: the service's rules as data (its JSON Schema is src/runner/schemas/profile.schema.json). */
export interface Profile {
  title: string;
  contractVersion: string;
  /** The platform the profile belongs to (matched against a description's x-platform). */
  platform?: string;
  /** Service ids the profile applies to; without services and platform it applies to every service. */
  services?: string[];
  errorEnvelope: { codePointer: string; appliesTo: string[] };
  statuses: Array<{ status: number; codes: string[]; envelope: 'required' | 'optional'; meaning?: string }>;
  unknownCode: 'warning' | 'error' | 'info';
  operationCodes?: Array<{ operation: string; status: number; code: string; meaning?: string }>;
  auth: {
    /** Header of the bearer token for an operation that declares no security scheme of its own. */
    header: string;
    rejectStatuses: number[];
    otherRejectionSeverity: 'warning' | 'error' | 'info';
    /** Any of rejectStatuses may answer a refused credential on every operation, documented or not. */
    rejectStatusesEverywhere?: boolean;
    /** The token goes with every operation, whether or not its description declares security. */
    everyOperation?: boolean;
    /** Error code of the platform's refusal of the caller's IP address (a configuration problem, never a defect). */
    ipDeniedCode?: string;
  };
  createShape: {
    shapes: Array<'record' | 'array' | 'page'>;
    page: { totalFormat: 'int32' | 'int64'; dataRequired: boolean };
    operations: Array<{ operation: string; recordRequires: string[] }>;
  };
  missing: { gatewayStatuses: number[] };
  sideEffects: Array<{ operation: string; class: 'reversible' | 'irreversible' | 'mutating'; undo?: string; effect: string }>;
  propertyCasing?: { caseSensitive: boolean; mismatchSeverity: 'warning' | 'error' | 'info' };
  /** Request fields whose values are secrets a flow verifies: no response of the case may carry them. */
  secretFields?: string[];
  /**
   * The platform promises strict validation: accepting an input of the lenient tier (plan/input-tiers.ts) is an
   * error, for every lenient class (true) or for the classes listed.
   */
  strictInput?: boolean | string[];
  /** Statuses every operation of the platform's services may answer beside those it documents (a gateway's 429, 502). */
  commonStatuses?: number[];
  /** Media types the platform treats as one (e.g. application/problem+json answered where application/json is declared). */
  mediaTypeEquivalents?: string[][];
  /** Resource groups whose records belong to the identity that created them (as x-ownership: per-identity declares). */
  ownership?: { perIdentity?: string[] };
  /** Roles a caller needs, per resource group or operationId. */
  roles?: Record<string, string[]>;
}

/** Whether the operation's records belong to the identity that created them: its description or its profile says so. */
export function ownedPerIdentity(op: { ownership?: 'per-identity'; group: string }, profile: Profile): boolean {
  return op.ownership === 'per-identity' || (profile.ownership?.perIdentity ?? []).includes(op.group);
}

/**
 * What an identity lacks for the operation: the scope lists of its security requirement when the identity holds
 * none of them, the roles the profile names when it holds not all. Only what the identity declares counts (an
 * identity that declares no scopes lacks none). Empty: nothing known to be lacking.
 */
export function lackingFor(op: { operationId: string; group: string; scopes?: string[][] }, profile: Profile, held: { scopes?: readonly string[]; roles?: readonly string[] } | undefined): { scopes?: string[][]; roles?: string[] } {
  const holdsAll = (have: readonly string[] | undefined, needed: readonly string[]) => have === undefined || needed.every((n) => have.includes(n));
  const roles = rolesFor(op, profile);
  return {
    ...(op.scopes && !op.scopes.some((list) => holdsAll(held?.scopes, list)) ? { scopes: op.scopes } : {}),
    ...(roles && !holdsAll(held?.roles, roles) ? { roles } : {}),
  };
}

/** The roles a caller needs for the operation (its operationId's entry, else its group's), if the profile names any. */
export function rolesFor(op: { operationId: string; group: string }, profile: Profile): string[] | undefined {
  return profile.roles?.[op.operationId] ?? profile.roles?.[op.group];
}

export { PROFILE_SCHEMA } from '../schemas/index.ts';
import { PROFILE_SCHEMA } from '../schemas/index.ts';

export function loadProfile(file: string): Promise<Profile> {
  return readValidatedYaml<Profile>(file, PROFILE_SCHEMA);
}

export function sideEffectOf(profile: Profile, operationId: string): Profile['sideEffects'][number] | undefined {
  return profile.sideEffects.find((s) => s.operation === operationId);
}

export function isIrreversible(profile: Profile, operationId: string): boolean {
  return sideEffectOf(profile, operationId)?.class === 'irreversible';
}
