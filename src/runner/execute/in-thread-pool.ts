/**
 * A vitest pool whose worker runs the suites in the thread (or process) that started vitest, instead of a worker
 * thread of its own: vitest's side and the suites' side talk through a MessageChannel within it (what vitest's
 * `threads` pool sends between two threads), through vitest's worker API (`vitest/worker`: `init`,
 * `runBaseTests`, `setupEnvironment`, the entry its own thread pool runs). The suites' host is already a thread
 * or process apart from the run's cases, so a second one only added a Node isolate that started, loaded vitest's
 * runtime, Node's built-in modules and the engine again (the seed run against a deployment in its own process:
 * about 70 ms of CPU, and the isolate's memory). vitest's runtime then holds that thread's globals as it holds a
 * worker's (its console goes to the suites' output, its error listeners are the suites', process.exit throws):
 * the thread or process does nothing after the suites but answer their results, and a process ends through the
 * process.exit it had before (scenarios-child.ts).
 */
import { EventEmitter } from 'node:events';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/** What vitest asks of a pool (its PoolRunnerInitializer). */
export interface PoolRunnerInitializer {
  readonly name: string;
  createPoolWorker: () => InThreadWorker;
}

/** vitest's worker API, as far as this pool uses it (vitest 4.1: `vitest/worker`, experimental). */
interface WorkerApi {
  init(worker: {
    post(message: unknown): void;
    on(callback: (message: unknown) => void): void;
    off(callback: (message: unknown) => void): void;
    teardown(): void;
    runTests(state: unknown, traces: unknown): unknown;
    collectTests(state: unknown, traces: unknown): unknown;
    setup(context: unknown): unknown;
  }): void;
  runBaseTests(method: 'run' | 'collect', state: unknown, traces: unknown): Promise<void>;
  setupEnvironment(context: unknown): Promise<() => Promise<void>>;
}

const NAME = 'conformance-in-thread';

class InThreadWorker {
  readonly name = NAME;
  private readonly events = new EventEmitter();
  private channel: { outer: MessagePort; inner: MessagePort } | undefined;
  private started = false;

  constructor(private readonly api: WorkerApi) {}

  on(event: string, callback: (arg: unknown) => void): void {
    if (event === 'message') this.ports().outer.on('message', callback);
    else this.events.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    if (event === 'message') this.channel?.outer.off('message', callback);
    else this.events.off(event, callback);
  }

  send(message: unknown): void {
    this.ports().outer.postMessage(message);
  }

  async start(): Promise<void> {
    // Called again when vitest reuses the worker: the runtime is set up once.
    if (this.started) return;
    this.started = true;
    const { inner } = this.ports();
    const { api } = this;
    api.init({
      post: (message) => inner.postMessage(message),
      on: (callback) => inner.on('message', callback),
      off: (callback) => inner.off('message', callback),
      teardown: () => inner.removeAllListeners('message'),
      runTests: (state, traces) => api.runBaseTests('run', state, traces),
      collectTests: (state, traces) => api.runBaseTests('collect', state, traces),
      setup: (context) => api.setupEnvironment(context),
    });
  }

  async stop(): Promise<void> {
    this.channel?.outer.close();
    this.channel?.inner.close();
    this.channel = undefined;
    this.events.emit('exit', 0);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  private ports(): { outer: MessagePort; inner: MessagePort } {
    if (!this.channel) {
      const { port1, port2 } = new MessageChannel();
      this.channel = { outer: port1, inner: port2 };
    }
    return this.channel;
  }
}

/**
 * vitest's options for the suites: this pool with a single worker (two would run two files in one thread, and
 * vitest's runtime holds one file's state in that thread's globals: "Task instance was not found"), or vitest's
 * `threads` pool where the installed vitest has no such worker API.
 */
export async function suitePoolOptions(): Promise<{ pool: PoolRunnerInitializer; maxWorkers: 1 } | { pool: 'threads' }> {
  const pool = await inThreadPool();
  return pool ? { pool, maxWorkers: 1 } : { pool: 'threads' };
}

/**
 * The pool, or undefined when the installed vitest has no such worker API (then vitest's `threads` pool runs the
 * suites, as before).
 */
async function inThreadPool(): Promise<PoolRunnerInitializer | undefined> {
  let api: Partial<WorkerApi>;
  try {
    api = (await import('vitest/worker')) as Partial<WorkerApi>;
  } catch {
    return undefined;
  }
  if (typeof api.init !== 'function' || typeof api.runBaseTests !== 'function' || typeof api.setupEnvironment !== 'function') return undefined;
  const complete = api as WorkerApi;
  return { name: NAME, createPoolWorker: () => new InThreadWorker(complete) };
}
