/**
 * Requests sent on a worker thread. With a fast server, sending and reading (undici's dispatch and parser, the
 * socket's system calls, the decoders) is about a quarter of the CPU a run spends per request; on a thread of its
 * own it runs on another core beside the planning and judging. The worker builds its dispatcher from the same
 * options (proxy, TLS: dispatcher.ts), sends what it is given and returns each answer as read (capped, decoded,
 * not parsed) or why there is none; redaction, parsing and judging stay with the caller, which holds the secrets.
 *
 * Messages are plain data; what one pass of the microtask queue sends or answers is posted as one message (a
 * message to a waiting thread costs a system call to wake it). Waiting for the end of an event-loop turn instead
 * posts fewer messages but lets the two threads take turns: 2,770 operations against a fast local server took
 * 61-63 s that way, 52-58 s with a message per microtask pass. A worker that fails or exits ends its requests in
 * flight as errors naming the cause, and every later request too: a run never waits on a thread that is gone. The
 * thread keeps the process alive only while requests are in flight.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OutgoingRequest, Transfer, Transport } from './client.ts';
import type { ClientOptions } from './client-options.ts';
import type { PoolOptions } from './dispatcher.ts';

/** What the worker builds its dispatcher from (buildDispatcher's arguments). */
export interface WorkerSetup {
  client: Pick<ClientOptions, 'clientCert' | 'clientKey' | 'caCert' | 'insecure' | 'httpProxy' | 'httpsProxy' | 'noProxy'>;
  pool: PoolOptions;
  /** The V8 flags the run set (v8-flags.ts), set again once the thread runs. */
  v8Flags?: string[];
}

export type ToWorker =
  | { id: number; request: OutgoingRequest; cap: number; timeoutMs: number }
  | { abort: string }
  | { close: true };

export type FromWorker = { id: number; transfer: Transfer } | { closed: true };

/** Messages collected during one pass of the microtask queue and posted together at its end. */
export class Batch<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(private readonly post: (items: T[]) => void) {}

  add(item: T): void {
    this.items.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.post(items);
  }
}

// Built (dist/*.js): the built worker, run as is; from the TypeScript sources: the .ts worker through tsx.
const COMPILED = import.meta.url.endsWith('.js');

/**
 * The thread's young generation is kept small: what it allocates per exchange dies at once, and V8's default lets
 * the young generation grow to tens of megabytes first (800 operations against `200 {}`: the thread's heap 47 MB
 * at its peak, the process 190 MiB; at 4 MB 17 MB and 167 MiB, sending on the main thread 164 MiB).
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4 };

function startWorker(setup: WorkerSetup): Worker {
  if (COMPILED) return new Worker(new URL('./transport-worker.js', import.meta.url), { workerData: setup, resourceLimits: RESOURCE_LIMITS });
  const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
  const entry = new URL('./transport-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: setup, resourceLimits: RESOURCE_LIMITS });
}

export class WorkerTransport implements Transport {
  private readonly worker: Worker;
  private readonly outbox: Batch<ToWorker>;
  private readonly pending = new Map<number, (transfer: Transfer) => void>();
  private next = 0;
  /** Why the worker can send no more (it failed, exited or was closed). */
  private gone: string | undefined;
  private closed: Promise<void> | undefined;
  private onClosed: (() => void) | undefined;

  constructor(setup: WorkerSetup) {
    this.worker = startWorker(setup);
    this.worker.unref();
    this.outbox = new Batch((messages) => this.worker.postMessage(messages));
    this.worker.on('message', (messages: FromWorker[]) => {
      for (const message of messages) {
        if ('closed' in message) return void this.onClosed?.();
        const resolve = this.pending.get(message.id);
        if (!resolve) continue;
        this.pending.delete(message.id);
        resolve(message.transfer);
      }
      if (this.pending.size === 0) this.worker.unref();
    });
    this.worker.on('error', (error) => this.stop(`the request thread failed: ${String(error.message).split('\n')[0]}`));
    this.worker.on('exit', (code) => {
      this.stop(`the request thread exited (code ${code})`);
      this.onClosed?.();
    });
  }

  transfer(request: OutgoingRequest, cap: number, timeoutMs: number): Promise<Transfer> {
    if (this.gone !== undefined) return Promise.resolve({ error: { kind: 'other', message: this.gone } });
    const id = this.next++;
    return new Promise<Transfer>((resolve) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, resolve);
      this.outbox.add({ id, request, cap, timeoutMs });
    });
  }

  abortAll(message: string): void {
    if (this.gone === undefined) this.outbox.add({ abort: message });
  }

  /** Closes the worker's connections (as a dispatcher's close does: requests in flight finish), then ends it. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      if (this.gone !== undefined) return void this.worker.terminate().then(() => resolve(), () => resolve());
      this.onClosed = () => {
        this.onClosed = undefined;
        void this.worker.terminate().then(() => resolve(), () => resolve());
      };
      this.worker.ref();
      this.outbox.add({ close: true });
    });
    return this.closed;
  }

  /** Ends every request in flight with `reason`, and every later one. */
  private stop(reason: string): void {
    this.gone ??= reason;
    for (const resolve of this.pending.values()) resolve({ error: { kind: 'other', message: this.gone } });
    this.pending.clear();
  }
}
