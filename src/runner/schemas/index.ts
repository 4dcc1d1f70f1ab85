/**
 * The engine's own file formats, as JSON Schemas beside this module: results.json (and its version 1), a
 * profile, waivers, an operation catalog and request examples; and the generic profile, the rules of a
 * contract no pack claims. Found relative to this module, so that the bundle (scripts/build.mjs copies them
 * beside it) finds them the same way.
 */
import { fileURLToPath } from 'node:url';

const here = (file: string): URL => new URL(`./${file}`, import.meta.url);

export const RESULTS_SCHEMA_URL = here('results.schema.json');
export const RESULTS_V1_SCHEMA_URL = here('results-v1.schema.json');
export const WAIVERS_SCHEMA_URL = here('waivers.schema.json');
export const PROFILE_SCHEMA = fileURLToPath(here('profile.schema.json'));
export const CATALOG_SCHEMA = fileURLToPath(here('catalog.schema.json'));
export const EXAMPLES_SCHEMA = fileURLToPath(here('examples.schema.json'));
/** The profile of a contract that belongs to no known platform (no envelope, no side-effect table). */
export const GENERIC_PROFILE = fileURLToPath(here('generic-profile.yaml'));
