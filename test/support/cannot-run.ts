/**
 * A test that cannot run here says so as a skip with its reason, never as a pass; under CI=true nothing may skip:
 * the reason fails the test instead (.ci/run installs what every test needs).
 */

/** Skips the test (ctx.skip) with `reason`, or under CI=true fails it with the reason. */
export function cannotRun(skip: (note?: string) => never, reason: string): never {
  if (process.env['CI']) throw new Error(`${reason} (CI=true: a test that cannot run fails)`);
  return skip(reason);
}
