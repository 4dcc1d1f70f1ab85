/**
 * The JSON Schema validator (ajv, draft 2020-12, with ajv-formats), for the modules that load it on use with
 * `await import('./ajv.ts')`: a run on files validated before never loads it. (Importing the CommonJS packages
 * here, statically, gives their named exports in the bundle as well as in Node.)
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export { Ajv2020 };

type AddFormats = (ajv: Ajv2020, formats?: string[]) => Ajv2020;
export const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
