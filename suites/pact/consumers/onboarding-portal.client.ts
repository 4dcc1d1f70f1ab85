/**
 * The onboarding portal's client for the customer domain service: the small slice of the service the portal
 * uses to manage address types and their fields, and the first step of the forgotten-password flow.
 *
 * This is the code the portal's pact tests exercise against the Pact mock server; it is written the way the
 * portal calls the real service (base address `https://{gateway}/customer-service`, bearer token on every call).
 */

export interface AddressTypeDraft {
  code: string;
  name: string;
  country?: number;
}

export interface AddressTypeChange {
  name: string;
  isActive: boolean;
  country?: number;
}

export interface CreatedRecord {
  id: string;
}

export interface AddressTypeFieldDraft {
  fieldKey: string;
  isMandatory: boolean;
  sequenceNumber: number;
  isVisible?: boolean;
  separatorMark?: string;
}

export interface AddressTypeFieldChange extends AddressTypeFieldDraft {
  isActive: boolean;
}

export interface AddressTypeField {
  id: string;
  typeId: string;
  fieldKey: string;
  isMandatory: boolean;
  isVisible?: boolean;
  isActive: boolean;
  separatorMark?: string;
  sequenceNumber: number;
}

export interface FieldListQuery {
  pageIndex?: number;
  pageSize?: number;
  orderBy?: string;
  orderSort?: string;
}

export interface ForgetPasswordOtp {
  Username: string;
  TransactionId: string;
  EndDate?: string | null;
}

/** A call the service answered with a status other than 200. `code` is the envelope's error.code, if any. */
export class CustomerServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(`customer service answered ${status}${code ? ` (${code})` : ''}`);
    this.name = 'CustomerServiceError';
  }
}

export class OnboardingPortalClient {
  constructor(
    private readonly baseUrl: string,
    private readonly accessToken: string,
  ) {}

  createAddressType(draft: AddressTypeDraft): Promise<CreatedRecord> {
    return this.call<CreatedRecord>('POST', '/address-types', draft);
  }

  async updateAddressType(id: string, change: AddressTypeChange): Promise<void> {
    await this.call('PUT', `/address-types/${encodeURIComponent(id)}`, change);
  }

  async deleteAddressType(id: string): Promise<void> {
    await this.call('DELETE', `/address-types/${encodeURIComponent(id)}`);
  }

  createField(addressTypeId: string, draft: AddressTypeFieldDraft): Promise<CreatedRecord> {
    return this.call<CreatedRecord>('POST', `/address-types/${encodeURIComponent(addressTypeId)}/fields`, draft);
  }

  listFields(addressTypeId: string, query: FieldListQuery = {}): Promise<AddressTypeField[]> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) search.set(key, String(value));
    }
    const qs = search.size > 0 ? `?${search.toString()}` : '';
    return this.call<AddressTypeField[]>('GET', `/address-types/${encodeURIComponent(addressTypeId)}/fields${qs}`);
  }

  getField(addressTypeId: string, fieldId: string): Promise<AddressTypeField> {
    return this.call<AddressTypeField>('GET', this.fieldPath(addressTypeId, fieldId));
  }

  async updateField(addressTypeId: string, fieldId: string, change: AddressTypeFieldChange): Promise<void> {
    await this.call('PUT', this.fieldPath(addressTypeId, fieldId), change);
  }

  async deleteField(addressTypeId: string, fieldId: string): Promise<void> {
    await this.call('DELETE', this.fieldPath(addressTypeId, fieldId));
  }

  sendForgetPasswordOtp(userIdentifier: string): Promise<ForgetPasswordOtp> {
    return this.call<ForgetPasswordOtp>('POST', '/users/forget-password', { userIdentifier });
  }

  private fieldPath(addressTypeId: string, fieldId: string): string {
    return `/address-types/${encodeURIComponent(addressTypeId)}/fields/${encodeURIComponent(fieldId)}`;
  }

  private async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.accessToken}`,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json: unknown = text.length > 0 && isJson(res.headers.get('content-type')) ? JSON.parse(text) : undefined;
    if (res.status !== 200) throw new CustomerServiceError(res.status, errorCode(json));
    return json as T;
  }
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && /\bjson\b/i.test(contentType);
}

function errorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
