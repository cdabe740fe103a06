// Parsing the git CLI's machine-readable output into the shapes the git kind returns, and
// checking the values that reach git's argument list. Pure functions: no I/O, so unit-testable.

export const FileStatus = {
  Added: 'added',
  Modified: 'modified',
  Deleted: 'deleted',
  Renamed: 'renamed',
  Copied: 'copied',
  TypeChanged: 'type_changed',
  Unmerged: 'unmerged',
  Unknown: 'unknown',
} as const;
export type FileStatus = (typeof FileStatus)[keyof typeof FileStatus];

export interface ChangedFile {
  readonly path: string;
  readonly status: FileStatus;
  /** the old path of a renamed or copied file; absent otherwise */
  readonly from?: string;
}

export interface Change {
  readonly commit: string;
  /** "Name <email>" */
  readonly author: string;
  /** committer date, ISO-8601 UTC (what `since` filters on) */
  readonly at: string;
  readonly subject: string;
  readonly files: readonly ChangedFile[];
  /**
   * The service whose files it changed (the `layout` setting, else the repository's
   * `service` setting); null when no setting says. Packs read `[service={service}]`.
   */
  readonly service?: string | null;
  /** every service whose files it changed */
  readonly services?: readonly string[];
}

export interface CommitDetail {
  readonly commit: string;
  readonly author: string;
  readonly at: string;
  readonly subject: string;
  readonly body: string;
  /** `git show --stat` text, e.g. " deploy/app.yaml | 2 +-\n 1 file changed, …" */
  readonly diffstat: string;
  /**
   * The words its added lines bring that its removed lines did not have (at most
   * MAX_WORDS): the changed values an error can name (`shop_v2` for `"name": "shop_v2"`).
   */
  readonly added?: readonly string[];
}

/** Where a file belongs: `<path prefix>=<service>` entries, then the repository's service. */
export interface Layout {
  readonly prefixes: readonly { readonly prefix: string; readonly service: string }[];
  readonly service: string | null;
}

/** Reads `layout` entries (`nginx/=nginx`); a malformed one is an error naming it. */
export function parseLayout(entries: readonly string[], service: string | null): Layout {
  const prefixes = entries.map((entry) => {
    const at = entry.lastIndexOf('=');
    const prefix = entry.slice(0, at).trim();
    const name = entry.slice(at + 1).trim();
    if (at <= 0 || name === '')
      throw new Error(`layout entry ${JSON.stringify(entry)} is not <path prefix>=<service>`);
    return { prefix, service: name };
  });
  return { prefixes, service };
}

/**
 * The services a change's files belong to: those a layout prefix names first (the longest
 * prefix wins for a file), then the repository's own service for files no prefix names.
 * `service` is the first of them.
 */
export function withServices(change: Change, layout: Layout): Change {
  const named = new Set<string>();
  let unnamed = false;
  for (const file of change.files) {
    const hit = layout.prefixes
      .filter((p) => file.path.startsWith(p.prefix) || (file.from ?? '').startsWith(p.prefix))
      .sort((a, b) => b.prefix.length - a.prefix.length)[0];
    if (hit === undefined) unnamed = true;
    else named.add(hit.service);
  }
  if ((unnamed || change.files.length === 0) && layout.service !== null) named.add(layout.service);
  const list = [...named];
  return { ...change, service: list[0] ?? null, services: list };
}

export const MAX_WORDS = 50;
const WORD = /[A-Za-z0-9_.:@/-]{3,100}/g;

/**
 * The words of a `git show --unified=0` patch's changed lines that no removed line has: what a
 * commit changed, as an error message would name it. A file the commit added brings no
 * words (its every word would be "new", so an initial deploy would name everything); file
 * headers (+++/---) are skipped.
 */
export function addedWords(patch: string): string[] {
  const added = new Set<string>();
  const removed = new Set<string>();
  let newFile = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) newFile = false;
    if (line.startsWith('--- /dev/null')) newFile = true;
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    const into = line.startsWith('+') ? added : line.startsWith('-') ? removed : null;
    if (into === null || (newFile && into === added)) continue;
    for (const w of line.slice(1).match(WORD) ?? []) into.add(w);
  }
  return [...added].filter((w) => !removed.has(w) && /[A-Za-z0-9]/.test(w)).slice(0, MAX_WORDS);
}

/** Separates commits in `git log` output; fields inside a commit are NUL-separated. */
export const RECORD = '\x1e';
/** The `--format` for `git log -z --name-status` that parseLog reads. */
export const LOG_FORMAT = '%x1e%H%x00%an <%ae>%x00%cI%x00%s%x00';
/** The `--format` for `git show -s` that parseShow reads. */
export const SHOW_FORMAT = '%H%x00%an <%ae>%x00%cI%x00%s%x00%b';

const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const STATUS = /^([ACDMRTUXB])\d*$/;
const MAX_BODY_CHARS = 20_000;

export function clip(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function statusWord(letter: string): FileStatus {
  switch (letter) {
    case 'A':
      return FileStatus.Added;
    case 'M':
      return FileStatus.Modified;
    case 'D':
      return FileStatus.Deleted;
    case 'R':
      return FileStatus.Renamed;
    case 'C':
      return FileStatus.Copied;
    case 'T':
      return FileStatus.TypeChanged;
    case 'U':
      return FileStatus.Unmerged;
    default:
      return FileStatus.Unknown;
  }
}

function isoOf(raw: string | undefined): string {
  const ms = Date.parse(raw ?? '');
  if (Number.isNaN(ms)) throw new Error(`date ${JSON.stringify(raw ?? '')} is not ISO-8601`);
  return new Date(ms).toISOString();
}

/**
 * Reads `git log -z --name-status --format=LOG_FORMAT`. With -z every field is NUL-ended and
 * file names are never quoted, so any file name (spaces, newlines, quotes) survives. Each
 * commit starts with RECORD + hash; its files follow as `status NUL path NUL` (two paths for
 * renames and copies), the first status preceded by a newline.
 */
export function parseLog(out: string): Change[] {
  const tokens = out.split('\0');
  const changes: Change[] = [];
  let i = 0;
  const skipEmpty = () => {
    while (i < tokens.length && tokens[i] === '') i++;
  };
  for (;;) {
    skipEmpty();
    if (i >= tokens.length) break;
    const head = (tokens[i] ?? '').replace(/^\n/, '');
    if (!head.startsWith(RECORD) || !COMMIT.test(head.slice(1)))
      throw new Error(`unexpected git log output near ${JSON.stringify(clip(head, 60))}`);
    const commit = head.slice(1);
    const author = tokens[i + 1] ?? '';
    const at = isoOf(tokens[i + 2]);
    const subject = tokens[i + 3] ?? '';
    i += 4;
    const files: ChangedFile[] = [];
    for (;;) {
      skipEmpty();
      const match = STATUS.exec((tokens[i] ?? '').replace(/^\n/, ''));
      if (match === null) break;
      const letter = match[1] ?? '';
      if (letter === 'R' || letter === 'C') {
        const from = tokens[i + 1] ?? '';
        const path = tokens[i + 2] ?? '';
        files.push({ path, status: statusWord(letter), from });
        i += 3;
      } else {
        files.push({ path: tokens[i + 1] ?? '', status: statusWord(letter) });
        i += 2;
      }
    }
    changes.push({ commit, author, at, subject, files });
  }
  return changes;
}

/** Reads `git show -s --format=SHOW_FORMAT` and the `--stat` text. */
export function parseShow(out: string, stat: string): CommitDetail {
  const [commit = '', author = '', at, subject = '', ...rest] = out.split('\0');
  if (!COMMIT.test(commit))
    throw new Error(`unexpected git show output near ${JSON.stringify(clip(commit, 60))}`);
  const body = rest.join('\0').replace(/\s+$/, '');
  return {
    commit,
    author,
    at: isoOf(at),
    subject,
    body: body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}…` : body,
    diffstat: stat.replace(/^\n+/, '').replace(/\s+$/, ''),
  };
}

/**
 * A `paths` entry: relative to the repository root, no `..` segment, no control characters.
 * Passed after `--` with --literal-pathspecs, so no pathspec magic or globbing applies.
 */
export function checkPath(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '' || raw.length > 1000)
    throw new Error('argument paths must be a list of relative paths');
  if (raw.startsWith('/') || raw.startsWith('\\') || /^[A-Za-z]:/.test(raw))
    throw new Error(`path ${JSON.stringify(clip(raw, 80))} must be relative to the repository`);
  if (raw.split(/[/\\]/).includes('..'))
    throw new Error(`path ${JSON.stringify(clip(raw, 80))} must not contain ..`);
  if (/[\x00-\x1f\x7f]/.test(raw))
    throw new Error(`path ${JSON.stringify(clip(raw, 80))} has control characters`);
  return raw;
}

/** A branch or other ref name: git's ref-name rules, roughly, and never an option. */
export function checkRef(raw: string): string {
  const ok =
    /^[A-Za-z0-9._/+@-]+$/.test(raw) &&
    !raw.startsWith('-') &&
    !raw.startsWith('/') &&
    !raw.endsWith('/') &&
    !raw.endsWith('.lock') &&
    !raw.includes('..') &&
    !raw.includes('//') &&
    !raw.includes('@{');
  if (!ok) throw new Error('setting branch is not a valid branch name');
  return raw;
}

/** "45 s", "12 min", "2 h", "3 d" */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${String(s)} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${String(min)} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `${String(h)} h`;
  return `${String(Math.round(h / 24))} d`;
}
