/**
 * The scenario suites' process or thread (execute/scenarios.ts): runs the suites it is sent, answers their results
 * and ends. An interrupt (the parent's message, or in a process the terminal's SIGINT, which reaches the whole process
 * group) cancels the suites; what they recorded until then is still answered.
 */
import { parentPort } from 'node:worker_threads';
import { ownChildrenEnded } from '../cli/children.ts';
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
  process.once('message', (input: ScenarioInput) => {
    const run = runScenariosHere(input);
    const cancel = (): void => run.cancel();
    // Registered before vitest starts: the suites' run keeps the listeners it found.
    process.on('SIGINT', cancel);
    process.on('SIGTERM', cancel);
    process.on('message', (m) => {
      if (m === 'cancel') cancel();
    });
    const answer = (a: ChildAnswer): void => {
      process.send!(a, () => process.exit(0));
    };
    run.done.then(
      (outcome) => answer({ outcome }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
