/**
 * Stage 1, the inputs: what can be judged before anything is read or sent (a malformed base URL), and the client
 * options the run's own requests use.
 */
import type { ClientOptions } from '../http/client-options.ts';
import { InputError } from '../description/errors.ts';
import { baseUrlOptionOf } from '../pack.ts';
import { baseUrlProblem } from '../cli/base-url.ts';
import type { RunOptions } from './types.ts';

export interface Inputs {
  /** A target was given (--base-url or --server); without one the pack's reference deployment serves. */
  given: boolean;
  /** The client options of every request (the embedded service: never through a proxy, never a token command). */
  client: ClientOptions | undefined;
  runId: string;
}

export function checkInputs(options: RunOptions): Inputs {
  const packs = options.packs ?? [];
  const given = Object.keys(options.servers).length > 0 || options.baseUrl !== undefined;
  if (options.baseUrl !== undefined) {
    const bad = baseUrlProblem(options.baseUrl);
    if (bad) throw new InputError(`--base-url: ${bad}`);
  }
  for (const [id, url] of Object.entries(options.servers)) {
    const bad = baseUrlProblem(url);
    if (bad) throw new InputError(`${baseUrlOptionOf(packs, id, undefined)}: ${bad}`);
  }
  const client: ClientOptions | undefined =
    !given && options.client ? ({ ...options.client, httpProxy: '', httpsProxy: '', tokenCommand: undefined } as ClientOptions) : options.client;
  if (client && client.tokenCommand === undefined) delete client.tokenCommand;
  return { given, client, runId: options.runId ?? `conf${Date.now().toString(36)}` };
}
