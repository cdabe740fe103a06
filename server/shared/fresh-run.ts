// One run at a time of an async job that answers "what is true now" (a pull from a home):
// callers that ask while a run is under way share it only if they asked before it began. One
// who asks during a run gets the next run, which starts when that one ends and is shared by
// everyone who asked meanwhile; so an answer never predates its question (a "Sync now" right
// after a change never returns a pull that left before the change).

export function oneFreshRun<T>(job: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  let next: Promise<T> | null = null;
  const start = (): Promise<T> => {
    const run = job().finally(() => {
      running = null;
    });
    running = run;
    return run;
  };
  return () => {
    // A fresh run already waits (or is about to start: between a run's end and the queued
    // run's start `running` is null): join it, or two runs would overlap.
    if (next !== null) return next;
    if (running === null) return start();
    next = running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = null;
        return start();
      });
    return next;
  };
}
