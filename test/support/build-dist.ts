/** Global setup of the project's tests: the CLI runs compiled JavaScript, so build dist/ once before any test spawns it. */
export default async function setup(): Promise<void> {
  // @ts-expect-error plain JavaScript build script without type declarations
  const { buildDist } = (await import('../../scripts/build.mjs')) as { buildDist: () => Promise<void> };
  await buildDist();
}
