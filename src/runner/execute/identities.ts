/**
 * Identities: the callers a run holds credentials for. The run's own credential (--token, --auth) is the
 * identity `default`; each --identity NAME=CREDENTIAL (CONFORMANCE_IDENTITY_<NAME>, config `identities`) is
 * another. A second identity unlocks the access checks (execute/phases/access.ts): what one caller may do with
 * another's records, and with operations its scopes or roles do not cover.
 */

export { DEFAULT_IDENTITY, type Identity } from '../model/identity.ts';
import { DEFAULT_IDENTITY, type Identity } from '../model/identity.ts';

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;

/** The variable an identity's credential stands as in reports and reproductions: CONFORMANCE_IDENTITY_<NAME>. */
export function identityVariable(name: string): string {
  return `CONFORMANCE_IDENTITY_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** A problem with an identity's name (undefined: fine). */
export function identityNameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return `identity name "${name}" must start with a letter and hold only letters, digits, - and _ (at most 40)`;
  return undefined;
}

/**
 * An identity from its name and its text: a token, or a JSON object { token, auth, scopes, roles, from, body } (what
 * a config file's `identities.<name>` map becomes; `from` names the operation that answers its token, `body` what
 * it is sent). Throws a one-line Error on anything else.
 */
export function parseIdentity(name: string, text: string): Identity {
  const problem = identityNameProblem(name);
  if (problem) throw new Error(problem);
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) {
    if (trimmed === '') throw new Error(`identity ${name}: the credential is empty`);
    return { name, token: trimmed };
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new Error(`identity ${name}: the credential starts with { but is not a JSON object`);
  }
  const obj = value as Record<string, unknown>;
  const strings = (key: string): string[] | undefined => {
    const v = obj[key];
    if (v === undefined) return undefined;
    const list = typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : v;
    if (!Array.isArray(list) || list.some((s) => typeof s !== 'string' || s === '')) throw new Error(`identity ${name}: ${key} must be a list of names`);
    return list as string[];
  };
  const unknown = Object.keys(obj).filter((k) => !['token', 'auth', 'scopes', 'roles', 'from', 'body'].includes(k));
  if (unknown.length > 0) throw new Error(`identity ${name}: unknown key ${unknown[0]} (token, auth, scopes, roles, from, body)`);
  if (obj['from'] !== undefined && (typeof obj['from'] !== 'string' || obj['from'].trim() === '')) throw new Error(`identity ${name}: from must name the operation that answers its token ("POST /users/login" or an operationId)`);
  const body = obj['body'] === undefined ? undefined : typeof obj['body'] === 'string' ? obj['body'] : JSON.stringify(obj['body']);
  if (obj['token'] !== undefined && (typeof obj['token'] !== 'string' || obj['token'] === '')) throw new Error(`identity ${name}: token must be a non-empty string`);
  const auth = obj['auth'];
  if (auth !== undefined && (typeof auth !== 'object' || auth === null || Array.isArray(auth) || Object.values(auth).some((v) => typeof v !== 'string' || v === ''))) {
    throw new Error(`identity ${name}: auth must map security scheme names to credentials`);
  }
  const scopes = strings('scopes');
  const roles = strings('roles');
  const identity: Identity = {
    name,
    ...(typeof obj['token'] === 'string' ? { token: obj['token'] } : {}),
    ...(auth ? { auth: auth as Record<string, string> } : {}),
    ...(scopes ? { scopes } : {}),
    ...(roles ? { roles } : {}),
    ...(typeof obj['from'] === 'string' ? { from: obj['from'] } : {}),
    ...(body !== undefined ? { body } : {}),
  };
  if (name !== DEFAULT_IDENTITY && identity.token === undefined && identity.auth === undefined && identity.from === undefined) throw new Error(`identity ${name}: no credential (token, auth or from)`);
  return identity;
}

/** The identities CONFORMANCE_IDENTITY_<NAME> variables give (NAME in lower case). */
export function identitiesFromEnv(env: NodeJS.ProcessEnv): Identity[] {
  const out: Identity[] = [];
  for (const [key, value] of Object.entries(env)) {
    const m = /^CONFORMANCE_IDENTITY_([A-Z][A-Z0-9_]*)$/.exec(key);
    if (!m || value === undefined || value === '') continue;
    // Scopes and roles of an identity given by the environment: CONFORMANCE_IDENTITY_<NAME>_SCOPES / _ROLES.
    if (/_(SCOPES|ROLES)$/.test(m[1]!) && env[key.replace(/_(SCOPES|ROLES)$/, '')] !== undefined) continue;
    const name = m[1]!.toLowerCase();
    const identity = parseIdentity(name, value);
    const scopes = env[`${key}_SCOPES`]?.split(/[\s,]+/).filter(Boolean);
    const roles = env[`${key}_ROLES`]?.split(/[\s,]+/).filter(Boolean);
    out.push({ ...identity, ...(scopes?.length ? { scopes } : {}), ...(roles?.length ? { roles } : {}) });
  }
  return out;
}

/** Identities merged by name: a later one's credential, scopes and roles win over an earlier one's. */
export function mergeIdentities(...lists: ReadonlyArray<readonly Identity[]>): Identity[] {
  const byName = new Map<string, Identity>();
  for (const list of lists) for (const identity of list) byName.set(identity.name, { ...byName.get(identity.name), ...identity });
  return [...byName.values()];
}

/**
 * What reports write in place of each other identity's credentials: $CONFORMANCE_IDENTITY_<NAME> for its token,
 * $CONFORMANCE_IDENTITY_<NAME>_<SCHEME> for a scheme's own credential.
 */
export function identityCredentials(identities: readonly Identity[]): Array<{ variable: string; value: string }> {
  return identities
    .filter((i) => i.name !== DEFAULT_IDENTITY)
    .flatMap((i) => [
      ...(i.token ? [{ variable: identityVariable(i.name), value: i.token }] : []),
      ...Object.entries(i.auth ?? {}).map(([scheme, value]) => ({ variable: `${identityVariable(i.name)}_${scheme.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`, value })),
    ]);
}
