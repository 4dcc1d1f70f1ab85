/**
 * A base URL is an http:// or https:// URL. Anything else (`htp://gw/…`, `ftp://…`, a bare host name) is bad
 * input, said in one line naming the option (or the variable, or the config-file key) that gave it, before any
 * request is sent; it never reaches the HTTP client, which would call it an unreachable target.
 */
import { InvalidArgumentError } from 'commander';

/**
 * What is wrong with a base URL, or undefined when it is an http(s) URL. Whoever reports it names the option, the
 * variable or the config-file key in front. The value itself is not repeated (it may carry credentials); commander
 * does quote a flag's own argument in front of this message.
 */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'a base URL must be an http:// or https:// URL (this is not a URL)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `a base URL must be an http:// or https:// URL (the scheme is ${url.protocol.slice(0, -1)})`;
  return undefined;
}

/** The commander parser of a base-URL option: the value as given, or a one-line InvalidArgumentError. */
export function baseUrlArgument(value: string): string {
  const problem = baseUrlProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}
