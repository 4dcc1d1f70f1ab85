/**
 * The YAML reader that keeps positions (yaml's documents and line counter), for the modules that load it on use
 * with `await import('./yaml-document.ts')`: to name the line of a problem, and for the config file. (Importing the CommonJS package
 * here, statically, gives its named exports in the bundle as well as in Node.)
 */
import { isMap, isSeq, LineCounter, parse, parseDocument } from 'yaml';

export { isMap, isSeq, LineCounter, parse, parseDocument };
