/** In-memory state of one reference service instance (two instances never share state). */
import type { CreateShape, HandlerRequest, Reply } from './types.ts';

export interface AddressType {
  id: string;
  code: string;
  name: string;
  country?: number;
  isActive: boolean;
}

export interface AddressTypeField {
  id: string;
  typeId: string;
  fieldKey: string;
  isMandatory: boolean;
  isVisible: boolean;
  isActive: boolean;
  separatorMark?: string;
  sequenceNumber: number;
}

export interface CacheKeyRecord {
  key: string;
  mode: string;
  isSharedBetweenApplications: boolean;
  isSharedBetweenTenants: boolean;
}

export interface UserRecord {
  identityProviderUserId: string;
  userName?: string;
  email?: string;
}

export interface OtpTransaction {
  transactionId: string;
  username: string;
  oneTimePassword: string;
  /** Epoch milliseconds after which the OTP is no longer accepted. */
  expiresAt: number;
  consumed: boolean;
}

export interface ReferenceSeries {
  id: string;
  direction: string;
  transactionType: string;
  isDomestic: boolean;
  counter: number;
  lastReference: string;
}

function seededCaches(): CacheKeyRecord[] {
  return [
    { key: 'customer-configs', mode: 'Distributed', isSharedBetweenApplications: true, isSharedBetweenTenants: false },
    { key: 'parameters', mode: 'InMemory', isSharedBetweenApplications: false, isSharedBetweenTenants: false },
    { key: 'localizations', mode: 'Distributed', isSharedBetweenApplications: true, isSharedBetweenTenants: true },
  ];
}

export class ReferenceState {
  readonly addressTypes = new Map<string, AddressType>();
  /** All address type fields by id (each carries its typeId); insertion order is the default list order. */
  readonly addressTypeFields = new Map<string, AddressTypeField>();
  readonly caches: CacheKeyRecord[] = seededCaches();
  readonly users = new Map<string, UserRecord>();
  /** Forgot-password transactions by lower-cased transaction id. */
  readonly otpTransactions = new Map<string, OtpTransaction>();
  /** Reference-number series by `${direction}\u0000${transactionType}\u0000${isDomestic}`. */
  readonly referenceSeries = new Map<string, ReferenceSeries>();
  /** Every LastReference ever issued. */
  readonly issuedReferences = new Set<string>();

  fieldsOf(typeId: string): AddressTypeField[] {
    return [...this.addressTypeFields.values()].filter((f) => f.typeId === typeId);
  }
}

export interface OperationContext {
  state: ReferenceState;
  createShape: CreateShape;
}

/** The faithful implementation of one operation (validation included). */
export type Operation = (req: HandlerRequest, ctx: OperationContext) => Reply;
