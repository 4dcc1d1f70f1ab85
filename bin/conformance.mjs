#!/usr/bin/env node
// Entry point of `npm run conformance` and the package bin: loads the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { endChildProcesses, exitCleanlyOnSignals } = await import('../src/runner/cli/children.ts');
exitCleanlyOnSignals();
const { main } = await import('../src/runner/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// No process outlives the CLI: helper services are stopped and every child reaped before exit.
await endChildProcesses();
