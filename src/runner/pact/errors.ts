import { InputError } from '../description/errors.ts';

/** Bad pact input: no pacts found, an unreadable or malformed pact file, a missing path. One-line message. */
export class PactInputError extends InputError {
  override readonly name = 'PactInputError';
}
