/**
 * The trade-finance back office's client for the foreign-trade service: it draws a reference number for a new
 * foreign-trade transaction and checks reference numbers typed in by operators.
 *
 * Base address `https://{gateway}/foreign-trade-service`, bearer token on every call.
 */

export type TradeDirection = 'IMPORT' | 'EXPORT';

export interface ReferenceNumberRequest {
  direction: TradeDirection;
  isDomestic: boolean;
  transactionType: string;
}

/** ReferenceNumberDto, as far as the back office reads it. */
export interface ReferenceNumber {
  Id: string;
  Description: string;
  Counter: number;
  LastReference: string;
  Direction: string;
}

export interface ReferenceNumberValidation {
  IsValid: boolean;
}

export class ForeignTradeServiceError extends Error {
  constructor(readonly status: number) {
    super(`foreign-trade service answered ${status}`);
    this.name = 'ForeignTradeServiceError';
  }
}

export class TradeFinanceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly accessToken: string,
  ) {}

  generateReferenceNumber(request: ReferenceNumberRequest): Promise<ReferenceNumber> {
    return this.post<ReferenceNumber>('/reference-numbers/generate', request);
  }

  /**
   * The interface does not show this operation's request body. The back office sends the reference number as
   * `referenceNumber`: that field name is this consumer's assumption, recorded in its pact.
   */
  async isValidReferenceNumber(referenceNumber: string): Promise<boolean> {
    const result = await this.post<ReferenceNumberValidation>('/reference-numbers/validate', { referenceNumber });
    return result.IsValid;
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${this.accessToken}`,
        Accept: 'application/json',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new ForeignTradeServiceError(res.status);
    return (await res.json()) as T;
  }
}
