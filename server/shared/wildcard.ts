// The one wildcard matcher for every pattern a person or a file gives: query values over
// enum fields, policy service and label globs, packs' alert, label and service globs.
// Never a regular expression built from the pattern: `*` runs compiled to `.*` backtrack
// exponentially (40 stars held the event loop for 29 s). This is the greedy two-pointer
// match: each star only ever resumes one character further, so the work is at most
// pattern length × value length, and linear for the usual patterns.

export interface WildcardOptions {
  /** Compare ASCII letters without case (as SQLite's LIKE does). */
  readonly ignoreCase?: boolean;
  /** `?` matches any one character; otherwise it is itself. */
  readonly anyOne?: boolean;
}

const fold = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);

/** Whether `value` as a whole matches `pattern`, where `*` matches any run (none included). */
export function wildcardMatch(
  pattern: string,
  value: string,
  options: WildcardOptions = {},
): boolean {
  const anyOne = options.anyOne === true;
  if (!pattern.includes('*') && !(anyOne && pattern.includes('?')) && !options.ignoreCase)
    return pattern === value;
  const ignoreCase = options.ignoreCase === true;
  const same = (p: number, v: number): boolean => {
    const a = pattern.charCodeAt(p);
    if (anyOne && a === 63) return true; // '?'
    const b = value.charCodeAt(v);
    return a === b || (ignoreCase && fold(a) === fold(b));
  };
  let p = 0;
  let v = 0;
  let star = -1;
  let resume = 0;
  while (v < value.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = v;
    } else if (p < pattern.length && same(p, v)) {
      p++;
      v++;
    } else if (star !== -1) {
      p = star + 1;
      v = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}
