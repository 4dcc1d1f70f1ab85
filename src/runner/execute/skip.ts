/**
 * Why a case could not run, as a value: the kind says what to do about it (reports group and explain by
 * kind), the message says what happened. A case that cannot run raises a Skip; the session turns it into a
 * skipped case with that reason. Nothing parses the text again.
 */
export type SkipKind =
  | 'read-only'
  | 'irreversible'
  | 'otp-source'
  | 'no-producer'
  | 'interrupted'
  | 'missing'
  | 'setup-failed'
  | 'no-request'
  | 'max-failures'
  | 'not-applicable';

export class Skip extends Error {
  constructor(
    readonly kind: SkipKind,
    message: string,
  ) {
    super(message);
  }
}
