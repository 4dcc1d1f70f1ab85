/**
 * Users (seed §2.8, §2.9, §4.4). The types of the user-operation body fields and which are required are
 * not shown: nothing is type-checked and nothing is required (a body that is not a JSON object is still 400).
 *
 * Forgot-password flow: send-forget-password-otp issues a 6-digit one-time password for a new transaction
 * (valid 5 minutes: EndDate). `Username` is the userName of a user created here whose userName or email
 * equals `userIdentifier`, else `userIdentifier` itself (as text; "" when none was sent). Verify answers
 * 200 {} and consumes the OTP when transactionId, oneTimePassword and username all match an unconsumed,
 * unexpired transaction; any mismatch (unknown transaction, wrong OTP, other username, reused or expired
 * OTP) is 400 VALIDATION_ERROR. A wrong OTP does not consume the transaction.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { created, ok, validationError } from '../replies.ts';
import type { Operation, ReferenceState } from '../state.ts';
import { checkObjectBody, type FieldRule } from '../validate.ts';

export const OTP_LIFETIME_MS = 5 * 60 * 1000;

const CREATE_USER: readonly FieldRule[] = [
  'firstName',
  'lastName',
  'userName',
  'attributes',
  'bnplCustomerGroupId',
  'email',
  'generatePassword',
  'realm',
].map((name) => ({ name, type: 'untyped' }));

const SEND_OTP: readonly FieldRule[] = [{ name: 'userIdentifier', type: 'untyped' }];

const VERIFY_OTP: readonly FieldRule[] = [
  { name: 'oneTimePassword', type: 'untyped' },
  { name: 'transactionId', type: 'untyped' },
  { name: 'username', type: 'untyped' },
];

/** Strings as they are, numbers and booleans as text, anything else undefined. */
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export const createUser: Operation = (req, { state, createShape }) => {
  const body = checkObjectBody(req, CREATE_USER);
  if (!body.ok) return body.reply;
  const identityProviderUserId = randomUUID();
  const userName = asText(body.value['userName']);
  const email = asText(body.value['email']);
  state.users.set(identityProviderUserId, {
    identityProviderUserId,
    ...(userName !== undefined ? { userName } : {}),
    ...(email !== undefined ? { email } : {}),
  });
  return created({ identityProviderUserId, userPassword: randomBytes(12).toString('base64url') }, createShape);
};

function resolveUsername(state: ReferenceState, identifier: string): string {
  for (const user of state.users.values()) {
    if (user.userName !== undefined && (user.userName === identifier || user.email === identifier)) return user.userName;
  }
  return identifier;
}

export const sendForgetPasswordOtp: Operation = (req, { state }) => {
  const body = checkObjectBody(req, SEND_OTP);
  if (!body.ok) return body.reply;
  const username = resolveUsername(state, asText(body.value['userIdentifier']) ?? '');
  const transactionId = randomUUID();
  const expiresAt = Date.now() + OTP_LIFETIME_MS;
  const oneTimePassword = String(randomInt(0, 1_000_000)).padStart(6, '0');
  state.otpTransactions.set(transactionId, { transactionId, username, oneTimePassword, expiresAt, consumed: false });
  return ok({ Username: username, EndDate: new Date(expiresAt).toISOString(), TransactionId: transactionId });
};

export const verifyForgetPasswordOtp: Operation = (req, { state }) => {
  const body = checkObjectBody(req, VERIFY_OTP);
  if (!body.ok) return body.reply;
  const transactionId = asText(body.value['transactionId'])?.toLowerCase();
  const tx = transactionId === undefined ? undefined : state.otpTransactions.get(transactionId);
  if (tx === undefined) return validationError([{ field: 'transactionId', message: 'unknown transaction' }]);
  if (tx.consumed) return validationError([{ field: 'oneTimePassword', message: 'the one-time password was already used' }]);
  if (Date.now() > tx.expiresAt) return validationError([{ field: 'oneTimePassword', message: 'the one-time password has expired' }]);
  if (asText(body.value['username']) !== tx.username) {
    return validationError([{ field: 'username', message: 'does not match the transaction' }]);
  }
  if (asText(body.value['oneTimePassword']) !== tx.oneTimePassword) {
    return validationError([{ field: 'oneTimePassword', message: 'is not the one-time password of the transaction' }]);
  }
  tx.consumed = true;
  return ok({});
};
