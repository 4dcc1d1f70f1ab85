/**
 * V8 flags the run sets while it runs (young-generation.ts, http/large-bodies.ts). V8's flags belong to the process,
 * but starting a worker thread gives them their start-up values again (Node 20: a growth factor set before `new
 * Worker` is 2 again once the thread is online), so the request thread of a large run (http/transport.ts) sets
 * them again once it runs.
 */
import { setFlagsFromString } from 'node:v8';

const flags = new Map<string, string>();

/** Sets a V8 flag (`--name=value`) for the process, and keeps it for the threads started after. */
export function setV8Flag(flag: string): void {
  setFlagsFromString(flag);
  flags.set(flag.split('=')[0]!, flag);
}

/** The flags set so far, for a worker thread to set again. */
export function v8Flags(): string[] {
  return [...flags.values()];
}
