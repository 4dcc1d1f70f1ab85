/**
 * The scenario suites' process or thread (execute/scenarios.ts): runs the suites it is sent, answers their results
 * and ends. An interrupt (the parent's message, or in a process the terminal's SIGINT, which reaches the whole process
 * group) cancels the suites; what they recorded until then is still answered.
 */
import { parentPort } from 'node:worker_threads';
import { endChildProcesses, ownChildrenEnded } from '../cli/children.ts';
import { runScenariosHere, type ChildAnswer, type ScenarioInput } from './scenarios.ts';
import { lowerThisThreadPriority } from './thread-priority.ts';

if (parentPort) {
  const port = parentPort;
  // Beside the run's cases: the suites take the CPU the run leaves (thread-priority.ts).
  lowerThisThreadPriority();
  port.once('message', (input: ScenarioInput) => {
    const run = runScenariosHere(input);
    port.on('message', (m) => {
      if (m === 'cancel') run.cancel();
    });
    // Answered once the transform service the suites started (esbuild's, stopped by then) has been reaped here.
    const answer = (a: ChildAnswer): void => void ownChildrenEnded().then(() => port.postMessage(a));
    run.done.then(
      (outcome) => answer({ outcome }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
} else {
  // vitest's runtime runs the suites in this process (in-thread-pool.ts) and makes process.exit throw for them:
  // the process ends through the function it had before.
  const exit = process.exit.bind(process);
  process.once('message', (input: ScenarioInput) => {
    const run = runScenariosHere(input);
    const cancel = (): void => run.cancel();
    // Registered before vitest starts: the suites' run keeps the listeners it found.
    process.on('SIGINT', cancel);
    process.on('SIGTERM', cancel);
    process.on('message', (m) => {
      if (m === 'cancel') cancel();
    });
    // Answered once the transform service the suites started (esbuild's) has ended and been reaped here: a child
    // that ends after this process is left a zombie nothing waits for.
    const answer = (a: ChildAnswer): void => {
      void endChildProcesses().finally(() => process.send!(a, () => exit(0)));
    };
    run.done.then(
      (outcome) => answer({ outcome }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
