// What the gate (build/gate/svc-gate) prints, turned into the ssh kind's answers. The gate
// passes most tools' output through as it is (df -P, /proc/meminfo, ss, ps), so the
// parsing lives here, where it is typed and unit-tested. Host keys: the pinned line, its
// SHA256 fingerprint, and the key type inside a raw key blob.
import { createHash } from 'node:crypto';

export type UnitState = 'running' | 'stopped' | 'failed';

export interface Unit {
  readonly name: string;
  readonly state: UnitState;
  readonly pid: number | null;
}

export interface Listening {
  readonly address: string;
  readonly port: number;
  readonly process: string | null;
}

/**
 * Who holds the ports the gate config gives a unit (`unit.<name>.ports`): `taken` when a
 * process other than the unit listens on one (named in `holders`), `clear` when every one is
 * free or the unit's own, `unknown` when ss could not name a listener's process. A bind
 * error in a log is only a port in use now while another process still holds the port.
 */
export interface UnitPorts {
  readonly unit: string;
  readonly ports: number[];
  readonly holders: string[];
  readonly state: 'taken' | 'clear' | 'unknown';
}

export interface Established {
  readonly local_address: string;
  readonly local_port: number;
  readonly peer_address: string;
  readonly peer_port: number;
  readonly process: string | null;
}

export interface Filesystem {
  readonly mount: string;
  readonly device: string;
  readonly size_kb: number;
  readonly used_kb: number;
  readonly avail_kb: number;
  readonly used_pct: number;
}

export interface Memory {
  readonly total_kb: number;
  readonly available_kb: number;
  readonly swap_total_kb: number;
  readonly swap_free_kb: number;
}

export interface Load {
  readonly load1: number;
  readonly load5: number;
  readonly load15: number;
  readonly cpus: number;
}

export interface Certificate {
  readonly path: string;
  readonly subject: string;
  readonly not_after: string;
  readonly days_left: number;
}

export interface ProcessRow {
  readonly pid: number;
  readonly user: string;
  readonly cpu_pct: number;
  readonly mem_pct: number;
  readonly rss_kb: number;
  readonly elapsed_s: number;
  readonly command: string;
}

const DAY_MS = 86_400_000;
const UNIT_STATES: readonly string[] = ['running', 'stopped', 'failed'];

const linesOf = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

/** The gate's version line, "svc-gate 1". */
export function parseVersion(text: string): string {
  const m = /^svc-gate (\S+)$/m.exec(text);
  if (m?.[1] === undefined) throw new Error('the gate did not say its version (is it svc-gate?)');
  return m[1];
}

/** "unit <name> <running|stopped|failed> <pid|->" lines. */
export function parseServices(text: string): { units: Unit[] } {
  const units: Unit[] = [];
  for (const line of linesOf(text)) {
    const [tag, name, state, pid] = line.trim().split(/\s+/);
    if (tag !== 'unit' || name === undefined || state === undefined) continue;
    if (!UNIT_STATES.includes(state)) continue;
    units.push({
      name,
      state: state as UnitState,
      pid: pid !== undefined && /^\d+$/.test(pid) ? Number(pid) : null,
    });
  }
  return { units };
}

/** "127.0.0.1:80", "[::1]:22", "*:22", "127.0.0.53%lo:53" → address and port. */
export function splitEndpoint(text: string): { address: string; port: number } | null {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return null;
  const port = Number(text.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return null;
  let address = text.slice(0, colon);
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const pct = address.indexOf('%');
  if (pct > 0) address = address.slice(0, pct);
  return { address, port };
}

interface SsRow {
  readonly local: string;
  readonly peer: string;
  readonly program: string | null;
  readonly pid: number | null;
}

/** One `ss -H -tn[l]p` line; with a state filter ss leaves the State column out. */
function parseSsLine(line: string): SsRow | null {
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== undefined && !/^\d+$/.test(fields[0])) fields.shift();
  const [, , local, peer, ...rest] = fields;
  if (local === undefined || peer === undefined) return null;
  const m = /users:\(\("((?:[^"\\]|\\.)*)",pid=(\d+)/.exec(rest.join(' '));
  return {
    local,
    peer,
    program: m?.[1] ?? null,
    pid: m?.[2] === undefined ? null : Number(m[2]),
  };
}

/** The ports check: ss sections, then pid → unit and port → unit maps from the gate. */
export function parsePorts(text: string): {
  listening: Listening[];
  established: Established[];
  unit_ports: UnitPorts[];
} {
  const sections = new Map<string, string[]>();
  let current = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) {
      current = line.slice(1).trim();
      sections.set(current, []);
    } else if (line.trim() !== '') sections.get(current)?.push(line);
  }
  const unitOfPid = new Map<number, string>();
  for (const line of sections.get('units') ?? []) {
    const [pid, unit] = line.trim().split(/\s+/);
    if (pid !== undefined && unit !== undefined && /^\d+$/.test(pid))
      unitOfPid.set(Number(pid), unit);
  }
  const unitOfPort = new Map<number, string>();
  for (const line of sections.get('unitports') ?? []) {
    const [port, unit] = line.trim().split(/\s+/);
    if (port !== undefined && unit !== undefined) unitOfPort.set(Number(port), unit);
  }
  const processOf = (row: SsRow): string | null =>
    (row.pid === null ? undefined : unitOfPid.get(row.pid)) ?? row.program;

  const listening: Listening[] = [];
  const seen = new Set<string>();
  for (const line of sections.get('listen') ?? []) {
    const row = parseSsLine(line);
    const local = row === null ? null : splitEndpoint(row.local);
    if (row === null || local === null) continue;
    const key = `${local.address} ${String(local.port)}`;
    if (seen.has(key)) continue; // one socket per worker process (SO_REUSEPORT)
    seen.add(key);
    listening.push({ ...local, process: processOf(row) ?? unitOfPort.get(local.port) ?? null });
  }
  const established: Established[] = [];
  for (const line of sections.get('established') ?? []) {
    const row = parseSsLine(line);
    const local = row === null ? null : splitEndpoint(row.local);
    const peer = row === null ? null : splitEndpoint(row.peer);
    if (row === null || local === null || peer === null) continue;
    established.push({
      local_address: local.address,
      local_port: local.port,
      peer_address: peer.address,
      peer_port: peer.port,
      process: processOf(row),
    });
  }
  return { listening, established, unit_ports: unitPorts(sections, unitOfPid) };
}

function unitPorts(
  sections: ReadonlyMap<string, string[]>,
  unitOfPid: ReadonlyMap<number, string>,
): UnitPorts[] {
  const portsOf = new Map<string, number[]>();
  for (const line of sections.get('unitports') ?? []) {
    const [port, unit] = line.trim().split(/\s+/);
    if (port === undefined || unit === undefined || !/^\d+$/.test(port)) continue;
    portsOf.set(unit, [...(portsOf.get(unit) ?? []), Number(port)]);
  }
  const rows = (sections.get('listen') ?? []).flatMap((line) => {
    const row = parseSsLine(line);
    const local = row === null ? null : splitEndpoint(row.local);
    return row === null || local === null ? [] : [{ row, port: local.port }];
  });
  return [...portsOf].map(([unit, ports]) => {
    const holders = new Set<string>();
    let unknown = false;
    for (const { row, port } of rows) {
      if (!ports.includes(port)) continue;
      if (row.pid === null) unknown = true;
      else if (unitOfPid.get(row.pid) !== unit)
        holders.add(
          `${unitOfPid.get(row.pid) ?? row.program ?? 'a process'} (pid ${String(row.pid)}) on ${String(port)}`,
        );
    }
    const state = holders.size > 0 ? 'taken' : unknown ? 'unknown' : 'clear';
    return { unit, ports, holders: [...holders], state };
  });
}

/** A named cache of the gate config: its size and its share of its file system. */
export interface CacheSize {
  readonly name: string;
  readonly kb: number;
  readonly pct: number;
}

/**
 * A unit's log or a database's files, as the gate's disk check sizes them: their size, their
 * share of the file system holding them, and how full that file system is, so the service
 * can tell what fills a full disk.
 */
export interface SizedPath {
  readonly name: string;
  readonly kb: number;
  readonly pct: number;
  readonly fs_used_pct: number;
}

export interface Disk {
  readonly filesystems: Filesystem[];
  readonly caches: CacheSize[];
  readonly logs: SizedPath[];
  readonly data: SizedPath[];
}

const DIGITS = /^\d+$/;

/**
 * One `df -P` (or `df -P -i`) row: device, total, used, left, percent (null when df wrote
 * none), mount (which may hold spaces). Null for the header, a short line, or a pseudo file
 * system of total 0.
 */
function dfRow(f: readonly string[]): {
  device: string;
  total: number;
  used: number;
  left: number;
  pct: number | null;
  mount: string;
} | null {
  if (f.length < 6 || f[0] === 'Filesystem') return null;
  const [device, total, used, left, pct] = f as [string, string, string, string, string];
  if (![total, used, left].every((n) => DIGITS.test(n)) || Number(total) === 0) return null;
  return {
    device,
    total: Number(total),
    used: Number(used),
    left: Number(left),
    pct: /^\d+%$/.test(pct) ? Number(pct.slice(0, -1)) : null,
    mount: f.slice(5).join(' '),
  };
}

/**
 * `df -P -k`, then the gate's `cache <name> <kb> <pct>` lines and its `log|data <name> <kb>
 * <pct> <fs used pct>` lines: pseudo file systems of size 0 are left out.
 */
export function parseDisk(text: string): Disk {
  const filesystems: Filesystem[] = [];
  const caches: CacheSize[] = [];
  const logs: SizedPath[] = [];
  const data: SizedPath[] = [];
  for (const line of linesOf(text)) {
    const f = line.trim().split(/\s+/);
    if (f.length === 4 && f[0] === 'cache' && DIGITS.test(f[2] ?? '') && DIGITS.test(f[3] ?? '')) {
      caches.push({ name: f[1] ?? '', kb: Number(f[2]), pct: Number(f[3]) });
      continue;
    }
    if (f[0] === 'log' || f[0] === 'data') {
      if (f.length === 5 && f.slice(2).every((n) => DIGITS.test(n))) {
        const sized = {
          name: f[1] ?? '',
          kb: Number(f[2]),
          pct: Number(f[3]),
          fs_used_pct: Number(f[4]),
        };
        (f[0] === 'log' ? logs : data).push(sized);
      }
      continue;
    }
    const row = dfRow(f);
    if (row === null) continue;
    filesystems.push({
      mount: row.mount,
      device: row.device,
      size_kb: row.total,
      used_kb: row.used,
      avail_kb: row.left,
      used_pct: row.pct ?? 0,
    });
  }
  return { filesystems, caches, logs, data };
}

export interface InodeUse {
  readonly mount: string;
  readonly device: string;
  readonly inodes: number;
  readonly used: number;
  readonly free: number;
  readonly used_pct: number;
}

/**
 * `df -P -i`: file systems without a fixed inode table (btrfs, some overlays: 0 or -) are
 * left out, so they never read as full or as having room.
 */
export function parseInodes(text: string): { filesystems: InodeUse[] } {
  const filesystems: InodeUse[] = [];
  for (const line of linesOf(text)) {
    const row = dfRow(line.trim().split(/\s+/));
    if (row === null) continue;
    filesystems.push({
      mount: row.mount,
      device: row.device,
      inodes: row.total,
      used: row.used,
      free: row.left,
      used_pct: row.pct ?? Math.ceil((row.used * 100) / row.total),
    });
  }
  return { filesystems };
}

/** /proc/meminfo. */
export function parseMemory(text: string): Memory {
  const kb = new Map<string, number>();
  for (const line of linesOf(text)) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) kb.set(m[1], Number(m[2]));
  }
  const total = kb.get('MemTotal');
  if (total === undefined) throw new Error('memory: the host gave no MemTotal');
  return {
    total_kb: total,
    available_kb: kb.get('MemAvailable') ?? kb.get('MemFree') ?? 0,
    swap_total_kb: kb.get('SwapTotal') ?? 0,
    swap_free_kb: kb.get('SwapFree') ?? 0,
  };
}

/** /proc/loadavg and "cpus N". */
export function parseLoad(text: string): Load {
  const [first = ''] = linesOf(text);
  const [l1, l5, l15] = first.trim().split(/\s+/).map(Number);
  const cpus = Number(/^cpus (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  if ([l1, l5, l15, cpus].some((n) => n === undefined || !Number.isFinite(n)))
    throw new Error('load: the host gave no load average');
  return { load1: l1 ?? 0, load5: l5 ?? 0, load15: l15 ?? 0, cpus };
}

/** How far back a log line counts as the present: the window an alert fires and is read in. */
const RECENT_MS = 15 * 60_000;
/** A line stamped this far ahead of our clock is still read as now (clocks differ a little). */
const AHEAD_MS = 5 * 60_000;

// A time stamp at the start of a line: ISO 8601 (the app's, systemd's short-iso with +0000,
// PostgreSQL's with " UTC") or nginx's 2026/03/02 09:59:41. Without a zone it is read as UTC.
const STAMP =
  /^\s*\[?(\d{4})[-/](\d{2})[-/](\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|UTC|[+-]\d{2}:?\d{2})?/;

/** The time a line is stamped with, or null. */
function stampOf(line: string): number | null {
  const m = STAMP.exec(line);
  if (m === null) return null;
  const [, y, mo, d, h, mi, se, frac, zone] = m;
  let iso = `${y ?? ''}-${mo ?? ''}-${d ?? ''}T${h ?? ''}:${mi ?? ''}:${se ?? ''}${frac ?? ''}`;
  if (zone === undefined || zone === 'Z' || zone === 'UTC') iso += 'Z';
  else iso += zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** The last words of a log: the lines stamped within a minute of its last stamp. */
const LAST_WORDS_MS = 60_000;
/**
 * Last words still being said: the log's last stamp is this close to now. A service failing
 * now logs its error on every request; a line from a fault healed a few minutes ago is not.
 */
const CURRENT_MS = 45_000;
/** A log with no stamps at all: its last lines stand for its last words. */
const LAST_LINES = 10;

export interface Journal {
  readonly unit: string;
  readonly lines: string[];
  /** the lines stamped within the last 15 minutes: what the service says now */
  readonly recent: string[];
  /** its last words: what a unit that is down now said as it stopped, however long ago */
  readonly last: string[];
  /**
   * its last words when its last stamp is within 45 s of now, else none: what a running
   * service keeps saying while it fails (an error from a fault healed minutes ago is not)
   */
  readonly current: string[];
}

/**
 * The unit's last lines; `recent`, those stamped within the last 15 minutes (a line with no
 * stamp, such as a stack trace, has the time of the stamped line before it; lines before any
 * stamp, or stamped far ahead of `now`, are not recent); and `last`, the lines within a minute
 * of the last stamp and what follows them. A log line alone can be old: the packs read
 * `recent` for a running service, and `last` only beside a unit that is down now.
 */
export function parseJournal(unit: string, text: string, now: number, sinceMs?: number): Journal {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  // The gate's first line, when it knows it: when the unit's last run started. What was
  // logged before it was said by an earlier run, so it is no last word of this one.
  const startedLine = /^#started (\d+)$/.exec(all[0] ?? '');
  if (startedLine !== null) all.shift();
  const startedMs = startedLine === null ? undefined : Number(startedLine[1]) * 1000;
  const wordsSince = startedMs === undefined ? sinceMs : Math.max(sinceMs ?? startedMs, startedMs);
  const recent: string[] = [];
  const stamps: (number | null)[] = [];
  let at: number | null = null;
  let lastStamped = -1; // the last line with a stamp of its own
  for (const [i, line] of all.entries()) {
    const own = stampOf(line);
    if (own !== null) lastStamped = i;
    at = own ?? at;
    stamps.push(at);
    if (at !== null && at >= now - RECENT_MS && at <= now + AHEAD_MS && at >= (sinceMs ?? 0))
      recent.push(line);
  }
  // With `since`, what was logged before it is no word of the present failure.
  const kept = all
    .map((line, i) => ({ line, t: stamps[i] ?? null }))
    .filter((x) => wordsSince === undefined || (x.t !== null && x.t >= wordsSince));
  const final = kept.at(-1)?.t ?? null;
  const stamped =
    final === null
      ? wordsSince === undefined
        ? all.slice(-LAST_LINES)
        : []
      : kept.filter((x) => x.t !== null && x.t >= final - LAST_WORDS_MS).map((x) => x.line);
  const current =
    final !== null && final >= now - CURRENT_MS && final <= now + AHEAD_MS ? stamped : [];
  // The unstamped lines that end the log (a dying process's stack) were written after its
  // last stamp, at a time unknown: `since` cannot place them before the failure.
  const tail = lastStamped >= 0 ? all.slice(lastStamped + 1) : [];
  const last = wordsSince !== undefined && tail.length > 0 && stamped.length === 0 ? tail : stamped;
  return { unit, lines: all, recent, last, current };
}

/** "cert <path>", then subject=… and notAfter=… (or "error …" for an unreadable file). */
export function parseCertificates(text: string, now: number): { certificates: Certificate[] } {
  const certificates: Certificate[] = [];
  let path: string | null = null;
  let subject = '';
  let notAfter: number | null = null;
  const flush = () => {
    if (path !== null && notAfter !== null) {
      certificates.push({
        path,
        subject,
        not_after: new Date(notAfter).toISOString(),
        days_left: Math.floor((notAfter - now) / DAY_MS),
      });
    }
    path = null;
    subject = '';
    notAfter = null;
  };
  for (const line of linesOf(text)) {
    if (line.startsWith('cert ')) {
      flush();
      path = line.slice(5);
    } else if (line.startsWith('subject=')) subject = line.slice(8).trim();
    else if (line.startsWith('notAfter=')) {
      const t = Date.parse(line.slice(9).trim());
      notAfter = Number.isNaN(t) ? null : t;
    }
  }
  flush();
  return { certificates };
}

const PS_LINE = /^\s*(\d+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s(.*)$/;

/** `ps -eo pid=,user:32=,pcpu=,pmem=,rss=,etimes=,args=`. */
/**
 * `ps` rows, busiest first, and the one holding the most memory (`largest`): a young process
 * holding gigabytes is a hog observed, where a host's falling memory alone is only a trend.
 */
export function parseProcesses(text: string): {
  processes: ProcessRow[];
  largest: ProcessRow | null;
} {
  const processes: ProcessRow[] = [];
  for (const line of linesOf(text)) {
    const m = PS_LINE.exec(line);
    if (m === null) continue;
    const [, pid, user, cpu, mem, rss, etimes, command] = m;
    processes.push({
      pid: Number(pid),
      user: user ?? '',
      cpu_pct: Number(cpu),
      mem_pct: Number(mem),
      rss_kb: Number(rss),
      elapsed_s: Number(etimes),
      command: (command ?? '').trim(),
    });
  }
  const largest = processes.reduce<ProcessRow | null>(
    (a, p) => (a === null || p.rss_kb > a.rss_kb ? p : a),
    null,
  );
  return { processes, largest };
}

/** "key<TAB>value" lines: gate, unit:<name>, file:<path>. */
export function parseSetup(text: string): { facts: Record<string, string> } {
  const facts: Record<string, string> = {};
  for (const line of linesOf(text)) {
    const tab = line.indexOf('\t');
    if (tab > 0) facts[line.slice(0, tab)] = line.slice(tab + 1);
  }
  return { facts };
}

/** One watched configuration file of a unit, as `config_changes` reports it. */
export interface ConfigFile {
  readonly path: string;
  /** sha256 of the file now; null when it is missing */
  readonly current: string | null;
  /** sha256 of the version before it; null when the gate kept none */
  readonly previous: string | null;
  /** when the current version appeared (its mtime, never after the gate first saw it) */
  readonly changed_at: string | null;
  readonly age_s: number | null;
  /**
   * a previous version is kept and the current one appeared within the last hour, and is no
   * return to content the file had before (a restore puts back what ran; it breaks nothing new)
   */
  readonly changed_recently: boolean;
  /** the current content is one the file had before the previous version (a restore) */
  readonly returned?: boolean;
  /** the unit's error lines since the change name the file or what changed; null: no log */
  readonly named_in_errors: boolean | null;
  /** the unified diff previous → current, secrets masked on the host, bounded */
  readonly diff: string;
  /** the diff's changed lines on one line (`-a = 1 | +a = 2`), at most 300 characters */
  readonly summary: string;
}

export interface ConfigChanges {
  readonly unit: string;
  /** changed files first, the newest change first */
  readonly files: ConfigFile[];
  /** files changed within the last hour */
  readonly changed: number;
  /** of those, files the unit's errors name */
  readonly named: number;
  /**
   * files modified within the last hour with no earlier version kept (the gate first saw
   * them after the change): whether and what they changed cannot be told, so they are never
   * counted as unchanged
   */
  readonly unknown: number;
  /**
   * seconds back to the end of the 10 minutes after the newest version appeared; 1 until
   * they are over (PromQL refuses `offset 0s`)
   */
  readonly quiet_offset_s: number | null;
  /** seconds back to when the newest version appeared (at least 1): the 10 minutes before it end there */
  readonly change_offset_s: number | null;
}

/** A change older than this is not recent (the gate's RECENT_S). */
const RECENT_CHANGE_S = 3600;
/** How long a service must stay healthy after a change to refute it. */
const QUIET_AFTER_CHANGE_S = 600;
/** A SHA-256 digest in hex, as the gate reports file hashes. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
const SUMMARY_MAX = 300;

/** The changed lines of a unified diff on one line, for a finding to say. */
function diffSummary(diff: string): string {
  const lines = diff
    .split('\n')
    .filter((l) => /^[-+]/.test(l) && !l.startsWith('--- ') && !l.startsWith('+++ '));
  const text = lines.length === 0 ? diff.trim() : lines.join(' | ');
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}

/**
 * `config_changes <unit>`: `unit`, `now <epoch>`, then per file `file <path>`, `current`,
 * `previous`, `changed_at <epoch>`, `named_in_errors yes|no|unknown` and the diff as
 * `| ` lines. Times are the host's, so ages do not depend on the two clocks agreeing.
 */
export function parseConfigChanges(text: string): ConfigChanges {
  const unit = /^unit (\S+)$/m.exec(text)?.[1];
  const now = Number(/^now (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  if (unit === undefined || !Number.isFinite(now))
    throw new Error(
      'config_changes: the gate gave no unit and time (is it svc-gate 1 with watched files?)',
    );
  interface Draft {
    path: string;
    current: string | null;
    previous: string | null;
    at: number | null;
    named: boolean | null;
    returned: boolean;
    diff: string[];
  }
  const drafts: Draft[] = [];
  let cur: Draft | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('file ')) {
      cur = {
        path: line.slice(5),
        current: null,
        previous: null,
        at: null,
        named: false,
        returned: false,
        diff: [],
      };
      drafts.push(cur);
      continue;
    }
    if (cur === null) continue;
    if (line.startsWith('| ') || line === '|') cur.diff.push(line.slice(2));
    else if (line.startsWith('current ')) {
      const v = line.slice(8).trim();
      cur.current = SHA256_HEX.test(v) ? v : null;
    } else if (line.startsWith('previous ')) {
      const v = line.slice(9).trim();
      cur.previous = SHA256_HEX.test(v) ? v : null;
    } else if (line.startsWith('changed_at ')) {
      const v = Number(line.slice(11).trim());
      cur.at = Number.isInteger(v) && v > 0 ? v : null;
    } else if (line === 'returned yes') {
      cur.returned = true;
    } else if (line.startsWith('named_in_errors ')) {
      const v = line.slice(16).trim();
      cur.named = v === 'yes' ? true : v === 'no' ? false : null;
    }
  }
  const files = drafts.map((d): ConfigFile => {
    const age = d.at === null ? null : Math.max(0, now - d.at);
    return {
      path: d.path,
      current: d.current,
      previous: d.previous,
      changed_at: d.at === null ? null : new Date(d.at * 1000).toISOString(),
      age_s: age,
      changed_recently:
        d.current !== null &&
        d.previous !== null &&
        age !== null &&
        age <= RECENT_CHANGE_S &&
        !d.returned,
      returned: d.returned,
      named_in_errors: d.named,
      diff: d.diff.join('\n'),
      summary: diffSummary(d.diff.join('\n')),
    };
  });
  files.sort(
    (a, b) =>
      Number(b.changed_recently) - Number(a.changed_recently) ||
      (a.age_s ?? Infinity) - (b.age_s ?? Infinity),
  );
  const recent = files.filter((f) => f.changed_recently);
  const ages = files.map((f) => f.age_s).filter((a): a is number => a !== null);
  const newest = ages.length === 0 ? null : Math.min(...ages);
  return {
    unit,
    files,
    changed: recent.length,
    named: recent.filter((f) => f.named_in_errors === true).length,
    unknown: files.filter(
      (f) =>
        f.current !== null && f.previous === null && f.age_s !== null && f.age_s <= RECENT_CHANGE_S,
    ).length,
    quiet_offset_s: newest === null ? null : Math.max(1, newest - QUIET_AFTER_CHANGE_S),
    change_offset_s: newest === null ? null : Math.max(1, newest),
  };
}

/** OpenSSH's fingerprint of a key blob: SHA256:<base64 without padding>. */
export const fingerprintOf = (blob: Buffer): string =>
  `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;

/** The type name inside a raw ssh key blob (a length-prefixed string first). */
export function keyTypeOf(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const n = blob.readUInt32BE(0);
  if (n < 1 || n > 64 || blob.length < 4 + n) return null;
  const type = blob.subarray(4, 4 + n).toString('latin1');
  return /^[a-z0-9@.-]+$/.test(type) ? type : null;
}

export interface PinnedKey {
  readonly type: string;
  readonly blob: Buffer;
  readonly fingerprint: string;
}

/** A pinned host key line "ssh-ed25519 AAAA… [comment]"; throws naming the setting. */
export function parseHostKeyLine(line: string, setting = 'host_key'): PinnedKey {
  const [type, b64] = line.trim().split(/\s+/);
  if (type === undefined || b64 === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64))
    throw new Error(`setting ${setting} must be a public key line "ssh-ed25519 AAAA…"`);
  const blob = Buffer.from(b64, 'base64');
  if (keyTypeOf(blob) !== type)
    throw new Error(`setting ${setting} is not a valid ${type} public key`);
  return { type, blob, fingerprint: fingerprintOf(blob) };
}

/** The line for a key blob, as /hostkey answers and host_key pins. */
export function hostKeyLineOf(blob: Buffer): string {
  const type = keyTypeOf(blob);
  if (type === null) throw new Error('the host offered a key of no known type');
  return `${type} ${blob.toString('base64')}`;
}

/** Host key algorithms ssh2 should negotiate to be offered a key of the pinned type. */
export function hostKeyAlgorithmsFor(type: string): string[] {
  return type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [type];
}
