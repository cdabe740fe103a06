// The deploy repository: a git repository holding the app's config (config.json). A
// "deploy" commits a config and copies it to the app host, where the app picks it up. The
// service reads the repository through its git connector to see what changed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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
