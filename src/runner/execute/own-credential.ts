import type { Exchange } from '../model.ts';

/**
 * The exchanges whose request carried the run's own credential of every security scheme their operation names (the
 * scheme's own value, else the token): the session marks each as it sends it, the judge reads the mark. Held by
 * identity and weakly: a dropped exchange takes its mark with it.
 */
const marked = new WeakMap<Exchange, readonly string[]>();

export function markOwnCredential(exchange: Exchange, schemes: readonly string[]): void {
  if (schemes.length > 0) marked.set(exchange, schemes);
}

/** The schemes whose run's own credential the exchange's request carried; undefined when it carried none of them. */
export function ownCredentialOf(exchange: Exchange): readonly string[] | undefined {
  return marked.get(exchange);
}
