/**
 * Replica B of the cross-process latency measurement (`stores-replica.mjs`), in its own process:
 * a `PostgresTaskStore` that listens for changes and, for each, reads the event with
 * `readEvents` and reports to its parent over IPC when it had it (`process.hrtime`, a clock the
 * parent shares). Started and stopped by its parent only.
 */

import { loadTandem } from './stores-workload.mjs';

function report(message) {
  if (process.connected) process.send(message);
}

process.once('message', (start) => {
  void (async () => {
    const { connectionString, schema } = start.postgres;
    const tandem = await loadTandem('postgres');
    const store = await tandem.PostgresTaskStore.open({ connectionString, schema });
    const stop = await store.changeFeed.listen({
      onChange(taskId, seq) {
        store.readEvents(taskId, seq - 1, 1).then(
          (events) => {
            const t1 = process.hrtime.bigint();
            const event = events?.[0];
            report({ type: 'event', taskId, seq: event?.seq, t1: String(t1), json: event?.json });
          },
          (error) => report({ type: 'error', message: error.message }),
        );
      },
      onResync() {
        report({ type: 'resync' });
      },
    });
    process.on('message', (message) => {
      if (message.type !== 'stop') return;
      void stop()
        .then(() => store.close())
        .finally(() => process.disconnect());
    });
    report({ type: 'ready' });
  })().catch((error) => {
    report({ type: 'error', message: error.message });
    process.exitCode = 1;
    process.disconnect();
  });
});

// Without its parent there is nothing to report to.
process.on('disconnect', () => {
  setTimeout(() => process.exit(process.exitCode ?? 0), 1000).unref();
});
