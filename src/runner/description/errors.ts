/** Errors for bad input: each has a one-line message that says what is wrong and where. */
export class InputError extends Error {
  override readonly name: string = 'InputError';
}

/** A contract description (or the profile, catalog, examples, waivers) is broken. */
export class ContractError extends InputError {
  override readonly name = 'ContractError';
  constructor(
    readonly file: string,
    readonly pointer: string,
    detail: string,
  ) {
    super(`${file}${pointer ? `#${pointer}` : ''}: ${detail}`);
  }
}
