// The gate's `resolver` check: the names its config says the host should always resolve
// (resolve=), each asked of the host's resolver. It tells "resolution is broken" (those
// names fail too) from "one name does not resolve" (they answer), which a log line cannot.

export interface ResolvedName {
  readonly name: string;
  readonly resolved: boolean;
  /** the first address it resolved to; null when it did not resolve */
  readonly address: string | null;
}

export interface ResolverAnswer {
  readonly names: ResolvedName[];
  /** how many names were asked (0: the gate names none) */
  readonly checked: number;
  readonly resolved: number;
  readonly failed: number;
  /** the names that failed, comma-separated ('' when none), for a finding to say */
  readonly failing: string;
}

const LINE = /^name (\S+) (?:ok (\S+)|(fail))$/;

/** `resolver <n>`, then per name `name <name> ok <address>` or `name <name> fail`. */
export function parseResolver(text: string): ResolverAnswer {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = /^resolver (\d+)$/.exec(lines[0] ?? '');
  if (header === null)
    throw new Error('resolver: the gate gave no resolver header (is it a gate with resolve=?)');
  const names = lines.slice(1).map((line): ResolvedName => {
    const m = LINE.exec(line);
    if (m === null) throw new Error(`resolver: cannot read the line ${JSON.stringify(line)}`);
    return { name: m[1] ?? '', resolved: m[3] === undefined, address: m[2] ?? null };
  });
  const expected = Number(header[1]);
  if (names.length !== expected)
    throw new Error(
      `resolver: the gate named ${String(expected)} names but answered ${String(names.length)}`,
    );
  const failing = names.filter((n) => !n.resolved).map((n) => n.name);
  return {
    names,
    checked: names.length,
    resolved: names.length - failing.length,
    failed: failing.length,
    failing: failing.join(', '),
  };
}
