import type { Contract, ServiceSpec } from '../model.ts';
import { loadProfile, type Profile } from './profile.ts';

export { GENERIC_PROFILE } from '../schemas/index.ts';
import { GENERIC_PROFILE } from '../schemas/index.ts';

/** The profile each service of the contract is judged by, by service id. */
export type Profiles = Record<string, Profile>;

/** True when the profile claims the service: listed in `services`, or the description's x-platform matches. */
export function claims(profile: Profile, service: Pick<ServiceSpec, 'id' | 'platform'>): boolean {
  if (!profile.services && !profile.platform) return true;
  return (profile.services ?? []).includes(service.id) || (profile.platform !== undefined && service.platform === profile.platform);
}

/**
 * `--profile <file|generic>`: the file's profile applies to the services it claims (all of them when it names
 * no services and no platform); every other service gets the generic profile. `generic`: all get it.
 */
export async function loadProfiles(selection: string, contract: Pick<Contract, 'services'>): Promise<Profiles> {
  const generic = await loadProfile(GENERIC_PROFILE);
  const chosen = selection === 'generic' ? generic : await loadProfile(selection);
  const profiles: Profiles = Object.fromEntries(contract.services.map((s) => [s.id, claims(chosen, s) ? chosen : generic]));
  FALLBACK.set(profiles, generic);
  return profiles;
}

/** The generic profile loaded with each map: the profile of a service the map does not name (by identity, not title). */
const FALLBACK = new WeakMap<Profiles, Profile>();

/** The profile of a service (the generic one for a service the map does not know). */
export function profileFor(profiles: Profiles, serviceId: string): Profile {
  const profile = profiles[serviceId] ?? FALLBACK.get(profiles) ?? Object.values(profiles)[0];
  if (!profile) throw new Error(`no profile for service ${serviceId}`);
  return profile;
}
