/**
 * The worker thread of WorkerTransport (transport.ts): builds the run's dispatcher, sends each request it is given
 * and posts back what came of it. Run as a worker only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Dispatcher } from 'undici';
import { transfer, type Transfer } from './client.ts';
import { buildDispatcher } from './dispatcher.ts';
import { defaultClientOptions } from './client-options.ts';
import { Cancellation } from './exchange.ts';
import { noteAnswer } from './large-bodies.ts';
import { Batch, type FromWorker, type ToWorker, type WorkerSetup } from './transport.ts';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const inFlight = new Set<Cancellation>();
const outbox = new Batch<FromWorker>((messages) => port.postMessage(messages));
let dispatcher: Dispatcher | undefined;
let unusable: string | undefined;
try {
  dispatcher = buildDispatcher({ ...defaultClientOptions('', ''), ...setup.client }, setup.pool);
} catch (error) {
  unusable = (error as Error).message.split('\n')[0];
}

port.on('message', (messages: ToWorker[]) => {
  for (const message of messages) receive(message);
});

function receive(message: ToWorker): void {
  if ('id' in message) {
    const { id } = message;
    const reply = (result: Transfer) => outbox.add({ id, transfer: result });
    if (!dispatcher) return reply({ error: { kind: 'other', message: unusable ?? 'no dispatcher' } });
    const cancellation = new Cancellation();
    inFlight.add(cancellation);
    void transfer(dispatcher, message.request, message.cap, message.timeoutMs, cancellation).then((result) => {
      inFlight.delete(cancellation);
      // This thread's heap holds the large answers' chunks and text until collected (see large-bodies.ts).
      if ('response' in result) noteAnswer(result.response.size + result.response.text.length);
      reply(result);
    });
  } else if ('abort' in message) {
    const reason = new Error(message.abort);
    for (const cancellation of inFlight) cancellation.cancel(reason);
    inFlight.clear();
  } else {
    void Promise.resolve(dispatcher?.close()).catch(() => undefined).then(() => outbox.add({ closed: true }));
  }
}
