// The deploy repository: a git repository holding the app's config (config.json). A
// "deploy" commits a config and copies it to the app host, where the app picks it up. The
// service reads the repository through its git connector to see what changed, and undoes a
// deploy through the app host's gate (`revert app-config <commit>`), which runs the script
// writeRevertScript writes.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';

export const CONFIG_FILE = 'config.json';

export interface AppConfig {
  readonly title: string;
  readonly pool_size: number;
  readonly slow_ms: number;
  readonly database: {
    readonly host: string;
    readonly port: number;
    readonly name: string;
    readonly user: string;
  };
}

function git(repo: string, args: string[]): string {
  return execFileSync(
    'git',
    ['-C', repo, '-c', 'user.name=Lab Deployer', '-c', 'user.email=deploy@lab.invalid', ...args],
    { encoding: 'utf8', stdio: 'pipe' },
  ).trim();
}

export function initDeployRepo(repo: string, config: AppConfig): string {
  mkdirSync(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(
    join(repo, 'README.md'),
    '# shop deploys\n\nconfig.json is deployed to the app host.\n',
  );
  return commitConfig(repo, config, 'initial deploy of the shop app');
}

/** Commits `config` as config.json and answers the commit's hash. */
export function commitConfig(repo: string, config: AppConfig, message: string): string {
  writeFileSync(join(repo, CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']);
}

export function headConfig(repo: string): AppConfig {
  return JSON.parse(readFileSync(join(repo, CONFIG_FILE), 'utf8')) as AppConfig;
}

/** Applies the repository's config to the app host (atomically: the app never reads half). */
export function applyDeploy(repo: string, target: string): void {
  const tmp = `${target}.tmp`;
  copyFileSync(join(repo, CONFIG_FILE), tmp);
  renameSync(tmp, target);
}

/** Writes a config straight to the app host, bypassing the repository (drift, not a deploy). */
export function writeLiveConfig(target: string, config: AppConfig): void {
  const tmp = `${target}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(tmp, target);
}

export function readLiveConfig(target: string): AppConfig {
  return JSON.parse(readFileSync(target, 'utf8')) as AppConfig;
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Writes the app host's revert command (the gate's `revert.app-config=`): given a commit of
 * the deploy repository, it restores config.json as it was before that commit (`git show
 * <commit>^:config.json`), commits that as a revert, and applies it to the app host the way
 * applyDeploy does (a copy renamed into place). When the repository already holds that
 * config (a revert done before, or a heal), nothing is committed and it is applied again.
 */
export function writeRevertScript(file: string, repo: string, target: string): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    `#!/bin/bash
# Undo one deploy of the shop app (written by the lab): revert <commit>
set -euo pipefail
repo=${shq(repo)}
target=${shq(target)}
commit="\${1-}"
[[ "$commit" =~ ^[0-9a-f]{7,40}$ ]] || { echo "usage: $0 <commit>" >&2; exit 2; }
g() { git -C "$repo" -c user.name='Lab Deployer' -c user.email=deploy@lab.invalid "$@"; }
full="$(g rev-parse -q --verify "$commit^{commit}")" || { echo "no commit $commit in the deploy repository" >&2; exit 1; }
g cat-file -e "$full^:${CONFIG_FILE}" 2>/dev/null || { echo "$commit has no parent ${CONFIG_FILE} to restore" >&2; exit 1; }
g show "$full^:${CONFIG_FILE}" >"$repo/${CONFIG_FILE}.tmp"
mv "$repo/${CONFIG_FILE}.tmp" "$repo/${CONFIG_FILE}"
if g diff --quiet -- ${CONFIG_FILE}; then
  echo "${CONFIG_FILE} is already as before \${full:0:12}"
else
  g add -- ${CONFIG_FILE}
  g commit -q -m "Revert \${full:0:12}: restore ${CONFIG_FILE} as before it" -- ${CONFIG_FILE}
  echo "reverted \${full:0:12} as $(g rev-parse --short=12 HEAD)"
fi
cp -- "$repo/${CONFIG_FILE}" "$target.tmp"
mv -- "$target.tmp" "$target"
echo "applied ${CONFIG_FILE} to the app host"
`,
  );
  chmodSync(file, 0o755);
  return file;
}
