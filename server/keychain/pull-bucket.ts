// Pulls per member (design/keychain.md §2.10): a member pulls every 30 s; "Sync now", a
// handover and a person working through the Keychain page add some at once (20), but a
// member that keeps pulling faster than one every 5 s is refused with 429 and Retry-After. Keyed by the fingerprint the request was signed by, so
// only the member itself can spend its tokens. Kept in memory, bounded by the roster.

/** A few pulls at once, then one per this many milliseconds. */
export const PULL_EVERY_MS = 5_000;
export const PULL_BURST = 20;

export function createPullBucket(now: () => number, everyMs = PULL_EVERY_MS, burst = PULL_BURST) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes a token for `fp`; null when it may pull, or the seconds to wait. */
    take(fp: string): number | null {
      const t = now();
      const b = buckets.get(fp) ?? { tokens: burst, at: t };
      const tokens = Math.min(burst, b.tokens + Math.max(0, t - b.at) / everyMs);
      if (tokens < 1) {
        buckets.set(fp, { tokens, at: t });
        return Math.max(1, Math.ceil(((1 - tokens) * everyMs) / 1000));
      }
      buckets.set(fp, { tokens: tokens - 1, at: t });
      return null;
    },
    /** A member removed or gone: its bucket goes with it. */
    forget(fp: string): void {
      buckets.delete(fp);
    },
  };
}
