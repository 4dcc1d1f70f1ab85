/**
 * The scenario suites' process (execute/scenarios.ts): runs the suites it is sent, answers their results and ends.
 * An interrupt (the parent's message, or the terminal's SIGINT, which reaches the whole process group) cancels the
 * suites; what they recorded until then is still answered.
 */
import { runScenariosHere, type ChildAnswer, type ScenarioInput } from './scenarios.ts';

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
