// The git connector kind: recent changes of a deployment repository, and its head and
// branch as setup facts, for "what changed".
// Reads a local clone through the git CLI (execFile, never a shell): every run gets the
// caller's AbortSignal, a backstop timeout, a bounded output and a small fixed environment
// (no prompts, C locale, none of this service's own variables). User values reach git only
// as checked arguments after `--end-of-options` or `--`, with literal pathspecs.
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import type { ConnectorClient, ConnectorKind, HealthResult, ResolvedSettings } from '../kind.js';
import {
  LOG_FORMAT,
  SHOW_FORMAT,
  ageText,
  checkPath,
  checkRef,
  clip,
  addedWords,
  parseLayout,
  parseLog,
  parseShow,
  withServices,
} from './git.parse.js';
import { elapsedMs, readBoolean, readString, readStringList } from './settings.js';

/** Output above this many bytes is refused (git is killed). */
export const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
/** A backstop for a caller whose signal has no deadline. */
const GIT_TIMEOUT_MS = 120_000;
const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 50;
const MAX_PATHS = 100;
const COMMIT_ARG = /^[0-9a-f]{7,64}$/;

const OPERATIONS = ['changes', 'show', 'setup'] as const;

/**
 * The whole environment git sees. Nothing of this service's environment (tokens, SVC_*)
 * reaches git, its hooks or ssh; HOME lets git read the user's config and ssh keys.
 */
function gitEnv(): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: homedir(),
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=20',
  };
}

/** Git may print a remote URL with its credentials; never pass them on. */
function scrub(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
}

interface ExecFailure extends Error {
  code?: string | number | null;
  killed?: boolean;
  signal?: NodeJS.Signals | null;
}

function sinceArg(raw: unknown): string {
  if (typeof raw !== 'string') throw new Error('argument since must be an ISO-8601 time');
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new Error('argument since is not a valid time');
  return `--since=@${String(Math.floor(ms / 1000))}`;
}

function limitArg(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_LIMIT)
    throw new Error(`argument limit must be an integer from 1 to ${String(MAX_LIMIT)}`);
  return raw;
}

function pathsArg(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error('argument paths must be a list of relative paths');
  if (raw.length > MAX_PATHS)
    throw new Error(`argument paths takes at most ${String(MAX_PATHS)} paths`);
  return raw.map(checkPath);
}

function readPath(settings: ResolvedSettings): string {
  const path = readString(settings, 'path');
  if (path === undefined) throw new Error('setting path is required');
  if (!isAbsolute(path)) throw new Error('setting path must be an absolute path');
  if (path.includes('\0')) throw new Error('setting path is not a valid path');
  return path;
}

function createGitClient(settings: ResolvedSettings): ConnectorClient {
  const path = readPath(settings);
  const branchSetting = readString(settings, 'branch');
  const branch = branchSetting === undefined ? 'HEAD' : checkRef(branchSetting);
  const fetchFirst = readBoolean(settings, 'fetch', false);
  const layout = parseLayout(
    readStringList(settings, 'layout'),
    readString(settings, 'service') ?? null,
  );

  /** Runs `git -C <path> <args>` and gives its stdout; fails with git's own complaint. */
  function git(args: readonly string[], what: string, signal: AbortSignal): Promise<string> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        ['--no-pager', '--literal-pathspecs', '-C', path, ...args],
        {
          signal,
          timeout: GIT_TIMEOUT_MS,
          killSignal: 'SIGKILL',
          maxBuffer: MAX_OUTPUT_BYTES,
          env: gitEnv(),
          encoding: 'utf8',
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve(stdout);
            return;
          }
          if (signal.aborted) {
            reject(signal.reason as Error);
            return;
          }
          const e = error as ExecFailure;
          if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
            reject(
              new Error(
                `${what}: output larger than ${String(MAX_OUTPUT_BYTES / 1024 / 1024)} MB refused; ask for fewer commits`,
              ),
            );
          else if (e.code === 'ENOENT')
            reject(new Error(`${what}: the git program is not installed (apt-get install git)`));
          else if (e.killed === true)
            reject(new Error(`${what}: git took longer than ${String(GIT_TIMEOUT_MS / 1000)} s`));
          else {
            const said = clip(scrub(stderr)) || `exit status ${String(e.code ?? e.signal)}`;
            reject(new Error(`${what}: ${said}`));
          }
        },
      );
    });
  }

  const fetchNow = (signal: AbortSignal) =>
    git(
      ['-c', 'http.lowSpeedLimit=1000', '-c', 'http.lowSpeedTime=30', 'fetch', '--quiet'],
      `git fetch in ${path}`,
      signal,
    );

  /**
   * Facts for what-changed snapshots: the commit the branch points at (after a fetch when
   * `fetch` is set), its commit time, and the branch read (the checked-out one when no
   * branch is set, or "(detached)"). A new head is the change; `show` tells what it did.
   */
  async function setup(signal: AbortSignal): Promise<{ facts: Record<string, string> }> {
    const what = `git setup in ${path}`;
    if (fetchFirst) await fetchNow(signal);
    const out = await git(
      ['log', '-1', '--no-show-signature', '--format=%H%x00%cI', '--end-of-options', branch, '--'],
      what,
      signal,
    );
    const [head = '', at = ''] = out.trim().split('\0');
    if (!COMMIT_ARG.test(head)) throw new Error(`${what}: no commit on ${branch}`);
    let name = branch;
    if (branchSetting === undefined) {
      try {
        name = (await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], what, signal)).trim();
      } catch {
        signal.throwIfAborted();
        name = '(detached)'; // symbolic-ref fails only when HEAD is no branch
      }
    }
    const ms = Date.parse(at);
    const committed = Number.isNaN(ms) ? at : new Date(ms).toISOString();
    return { facts: { head, head_committed_at: committed, branch: name } };
  }

  async function changes(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const what = `git changes in ${path}`;
    const log = [
      'log',
      '-z',
      '-M',
      '--name-status',
      '--no-show-signature',
      '--no-color',
      `--format=${LOG_FORMAT}`,
      `--max-count=${String(limitArg(args['limit']))}`,
    ];
    if (args['since'] !== undefined) log.push(sinceArg(args['since']));
    const paths = pathsArg(args['paths']);
    if (fetchFirst) await fetchNow(signal);
    const out = await git([...log, '--end-of-options', branch, '--', ...paths], what, signal);
    return parseLog(out).map((c) => withServices(c, layout));
  }

  async function show(args: Readonly<Record<string, unknown>>, signal: AbortSignal) {
    const commit = args['commit'];
    if (typeof commit !== 'string' || !COMMIT_ARG.test(commit))
      throw new Error('argument commit must be a commit hash (7 to 64 lower-case hex digits)');
    const what = `git show ${commit} in ${path}`;
    const rev = `${commit}^{commit}`;
    const head = await git(
      ['show', '-s', '--no-show-signature', `--format=${SHOW_FORMAT}`, '--end-of-options', rev],
      what,
      signal,
    );
    const stat = await git(
      ['show', '--no-color', '--stat=200', '--format=', '-M', '--end-of-options', rev],
      what,
      signal,
    );
    const patch = await git(
      ['show', '--no-color', '--format=', '--unified=0', '--no-ext-diff', '--end-of-options', rev],
      what,
      signal,
    );
    return { ...parseShow(head, stat), added: addedWords(patch) };
  }

  async function health(signal: AbortSignal): Promise<HealthResult> {
    const started = performance.now();
    const fail = (detail: string): HealthResult => ({
      ok: false,
      detail,
      duration_ms: elapsedMs(started),
    });
    try {
      const inside = await git(['rev-parse', '--is-inside-work-tree'], 'git', signal);
      if (inside.trim() !== 'true') return fail(`${path} is not a git work tree`);
    } catch (err) {
      signal.throwIfAborted();
      return fail(`${path} is not a usable git repository: ${(err as Error).message}`);
    }
    try {
      const out = await git(
        [
          'log',
          '-1',
          '--no-show-signature',
          '--format=%h%x00%cI',
          '--end-of-options',
          branch,
          '--',
        ],
        'git',
        signal,
      );
      const [short = '', at = ''] = out.trim().split('\0');
      const age = Date.now() - Date.parse(at);
      const ms = elapsedMs(started);
      return {
        ok: true,
        detail: `git ${short}, last change ${ageText(age)} ago`,
        duration_ms: ms,
      };
    } catch (err) {
      signal.throwIfAborted();
      return fail(`no commit on ${branch} in ${path}: ${(err as Error).message}`);
    }
  }

  return {
    health,
    async call(op, args, signal) {
      switch (op) {
        case 'changes':
          return changes(args, signal);
        case 'show':
          return show(args, signal);
        case 'setup':
          return setup(signal);
        default:
          throw new Error(`git has no operation ${JSON.stringify(op)}`);
      }
    },
  };
}

export const gitKind: ConnectorKind = {
  kind: 'git',
  title: 'Git repository',
  description:
    'Recent commits and the files they changed in a deployment repository (a local clone, read with the git program), for "what changed".',
  capabilities: ['changes'],
  settings: [
    {
      name: 'path',
      type: 'string',
      required: true,
      description: 'Absolute path of a local clone, e.g. /srv/deploy/infra.',
    },
    {
      name: 'branch',
      type: 'string',
      required: false,
      description:
        'Branch or ref to read, e.g. main or origin/main (default: whatever HEAD is checked out).',
    },
    {
      name: 'service',
      type: 'string',
      required: false,
      description:
        'The service this repository deploys, e.g. app: its commits are changes of that service (a deploy is proven only against the service its files belong to).',
    },
    {
      name: 'layout',
      type: 'string_list',
      required: false,
      description:
        'Where files belong when the repository deploys several services: <path prefix>=<service> entries, e.g. nginx/=nginx (the longest prefix wins; others fall back to service).',
    },
    {
      name: 'fetch',
      type: 'boolean',
      required: false,
      default: false,
      description:
        'Run `git fetch --quiet` before reading changes (then set branch to the remote-tracking ref, e.g. origin/main).',
    },
  ],
  operations: OPERATIONS,
  create: createGitClient,
};
