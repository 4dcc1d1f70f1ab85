/**
 * The worker thread of WorkerTransport (transport.ts): builds the run's dispatcher, sends each request it is given
 * and posts back what came of it. Run as a worker only.
 */
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { DispatcherTransport, type Transfer } from './client.ts';
import { buildDispatcher } from './dispatcher.ts';
import { defaultClientOptions } from './client-options.ts';
import { noteAnswer } from './large-bodies.ts';
import { Batch, type FromWorker, type ToWorker, type WorkerSetup } from './transport.ts';

const port = parentPort!;
const setup = workerData as WorkerSetup;
// A new thread gives V8's flags their start-up values again: the run's are set again (v8-flags.ts).
for (const flag of setup.v8Flags ?? []) setFlagsFromString(flag);
const outbox = new Batch<FromWorker>((messages) => port.postMessage(messages));
/** The same sending as on the main thread (deadlines, aborts, close), here. */
let sender: DispatcherTransport | undefined;
let unusable: string | undefined;
try {
  sender = new DispatcherTransport(buildDispatcher({ ...defaultClientOptions('', ''), ...setup.client }, setup.pool));
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
    if (!sender) return reply({ error: { kind: 'other', message: unusable ?? 'no dispatcher' } });
    void sender.transfer(message.request, message.cap, message.timeoutMs).then((result) => {
      // This thread's heap holds the large answers' chunks and text until collected (see large-bodies.ts).
      if ('response' in result) noteAnswer(result.response.size + result.response.text.length);
      reply(result);
    });
  } else if ('abort' in message) {
    sender?.abortAll(message.abort);
  } else {
    void Promise.resolve(sender?.close()).catch(() => undefined).then(() => outbox.add({ closed: true }));
  }
}
