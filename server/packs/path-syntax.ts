// The syntax of a value path (PackValue.path), checked when a pack is validated so that a typo
// is refused by the packing tool rather than read as null at 3 a.m. The engine
// (server/investigate) evaluates paths; this file only says whether one is well formed.
//
//   path      := head ('.' name selector*)* ('|' aggregate)?
//   head      := name selector* | selector+          (a list answer may be indexed at once)
//   name      := [A-Za-z0-9_-]+
//   selector  := '[' (digits | '*' | name '=' value) ']'
//   value     := one or more characters other than ']' (templated, e.g. {service})
//   aggregate := count | max | min | sum | first | any | none

export const PATH_AGGREGATES = ['count', 'max', 'min', 'sum', 'first', 'any', 'none'] as const;
export type PathAggregate = (typeof PATH_AGGREGATES)[number];

const NAME_CHAR = /[A-Za-z0-9_-]/;
const AGGREGATES: ReadonlySet<string> = new Set(PATH_AGGREGATES);

/** Why `path` is not a well-formed value path, or null when it is. */
export function checkPathSyntax(path: string): string | null {
  if (path === '') return 'is empty';
  let i = 0;
  const at = (): string => `at character ${String(i + 1)}`;

  const readName = (): string => {
    const start = i;
    while (i < path.length && NAME_CHAR.test(path.charAt(i))) i++;
    return path.slice(start, i);
  };

  /** Reads one `[...]` starting at `[`; returns why it is malformed, or null. */
  const readSelector = (): string | null => {
    const open = i;
    i++; // '['
    const close = path.indexOf(']', i);
    if (close < 0) return `has an unclosed [ at character ${String(open + 1)}`;
    const inner = path.slice(i, close);
    i = close + 1;
    if (inner === '') return `has an empty [] at character ${String(open + 1)}`;
    if (inner === '*' || /^\d+$/.test(inner)) return null;
    const eq = inner.indexOf('=');
    if (eq < 0) {
      return `has [${inner}] at character ${String(open + 1)}: use [n], [*] or [key=value]`;
    }
    const key = inner.slice(0, eq);
    if (!/^[A-Za-z0-9_-]+$/.test(key)) {
      return `has a bad key "${key}" in [${inner}] at character ${String(open + 1)}`;
    }
    if (eq === inner.length - 1) {
      return `has no value after = in [${inner}] at character ${String(open + 1)}`;
    }
    return null;
  };

  const readSelectors = (): string | null => {
    while (path.charAt(i) === '[') {
      const why = readSelector();
      if (why !== null) return why;
    }
    return null;
  };

  // head
  const first = readName();
  if (first === '' && path.charAt(i) !== '[') {
    return path.charAt(i) === '|' ? 'has no path before |' : `has an empty name ${at()}`;
  }
  const headWhy = readSelectors();
  if (headWhy !== null) return headWhy;

  while (i < path.length) {
    const c = path.charAt(i);
    if (c === '.') {
      i++;
      if (readName() === '') return `has an empty name ${at()}`;
      const why = readSelectors();
      if (why !== null) return why;
    } else if (c === '|') {
      const aggregate = path.slice(i + 1);
      if (!AGGREGATES.has(aggregate)) {
        return `ends in |${aggregate}: use one of ${PATH_AGGREGATES.map((a) => `|${a}`).join(', ')}`;
      }
      return null;
    } else {
      return `has an unexpected "${c}" ${at()}`;
    }
  }
  return null;
}
