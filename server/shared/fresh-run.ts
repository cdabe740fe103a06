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
    // Between a run's end and the start of the one queued behind it, `running` is already
    // null: an ask then joins the queued run, or two would overlap.
    if (running === null && next === null) return start();
    if (running === null && next !== null) return next;
    next ??= running
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
