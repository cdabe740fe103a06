// How a confirmed cause reads to a person: an episode records each as its name, or as a
// record with a `cause` field (and more about it).

/** A confirmed cause as an episode records it: its name, or a `{cause}` record's. */
export function causeName(cause: unknown): string {
  if (typeof cause === 'string') return cause;
  if (typeof cause === 'object' && cause !== null && 'cause' in cause) {
    const named = cause.cause;
    if (typeof named === 'string') return named;
  }
  return 'a cause without a name';
}
