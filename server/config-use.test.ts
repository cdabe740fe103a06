// Every SVC_* variable takes effect, or the config module flags it "not yet" and the
// generated docs/configuration.md says so plainly. "Takes effect" is checked in the source:
// the config field a variable sets must be read somewhere beyond the config module (tests and
// test helpers do not count). The field of each variable is found by setting it and seeing
// which part of the config object changes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeConfig, loadConfig, variableTable } from './config.js';
import { configurationMarkdown } from './config-doc.js';
import { Secret } from './shared/secret.js';

const ROOT = join(import.meta.dirname, '..');

/** Values to try, one of which each variable accepts and which differs from its default. */
const CANDIDATES = [
  '7',
  '77',
  '1',
  '0',
  'https://example.test/x',
  'smtp',
  'api',
  'ssl',
  'replay',
  'mcts',
  'strict',
  'local3',
  'all',
  'debug',
  '{"a":1}',
  `sha256/${'A'.repeat(43)}=`,
  '/tmp/config-use-test',
  '127.0.0.1',
];

function leaves(value: unknown, path = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (value instanceof Secret) out.set(path, `secret:${value.reveal()}`);
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value))
      for (const [p, s] of leaves(v, path === '' ? k : `${path}.${k}`)) out.set(p, s);
  } else out.set(path, JSON.stringify(value));
  return out;
}

/** Other variables that some need beside them (SVC_MAIL_PROVIDER=smtp needs SVC_SMTP_HOST). */
const COMPANIONS: readonly Record<string, string>[] = [
  {},
  { SVC_SMTP_HOST: 'mail.test', SVC_SMTP_USER: 'u' },
  { SVC_MAIL_API_URL: 'https://mail.test/send', SVC_MAIL_API_KEY: 'k' },
  { SVC_SMTP_HOST: 'mail.test', SVC_MAIL_API_URL: 'https://mail.test/send', SVC_MAIL_API_KEY: 'k' },
];

/** The config fields a variable sets (e.g. SVC_SMTP_HOST: mail.smtpHost and mail.provider). */
function fieldsOf(name: string): string[] {
  for (const companion of COMPANIONS) {
    const others = Object.fromEntries(Object.entries(companion).filter(([k]) => k !== name));
    const base = leaves(loadConfig(others));
    // A JSON object's own keys are not fields: the field is the one the default has.
    const field = (p: string): string => (base.has(p) ? p : field(p.slice(0, p.lastIndexOf('.'))));
    for (const raw of CANDIDATES) {
      let changed: Map<string, string>;
      try {
        changed = leaves(loadConfig({ ...others, [name]: raw }));
      } catch {
        continue;
      }
      const fields = [...changed].filter(([p, v]) => base.get(p) !== v).map(([p]) => field(p));
      if (fields.length > 0) return [...new Set(fields)];
    }
  }
  throw new Error(`no candidate value changes the config for ${name}: add one to CANDIDATES`);
}

/** The service's own source (server/ and main/), without tests, test helpers or the config module. */
function sources(): string {
  const files: string[] = [];
  for (const top of ['server', 'main']) {
    for (const f of readdirSync(join(ROOT, top), { recursive: true }).map(String)) {
      const rel = relative(ROOT, join(ROOT, top, f));
      if (!/\.tsx?$/.test(f) || /(^|[./-])test(s|ing)?([./-]|$)/.test(rel)) continue;
      if (rel === join('server', 'config.ts') || rel === join('server', 'config-doc.ts')) continue;
      files.push(readFileSync(join(ROOT, rel), 'utf8'));
    }
  }
  return files.join('\n');
}

/**
 * Whether a config field is read: `.group.leaf` directly, or the group handed on whole
 * (`config.group` not followed by a dot) and its leaf read from it (`.leaf` or destructured).
 */
function isRead(field: string, text: string): boolean {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = field.split('.');
  const leaf = esc(parts.at(-1) ?? '');
  if (new RegExp(`\\.${parts.map(esc).join('\\??\\.')}\\b`).test(text)) return true;
  if (parts.length < 2) return false;
  const group = esc(parts.slice(0, -1).join('.'));
  const passedWhole = new RegExp(`\\bconfig\\??\\.${group}\\b(?!\\s*\\??\\.)`).test(text);
  const leafRead = new RegExp(`\\.${leaf}\\b|\\{[^}=]*\\b${leaf}\\b[^}=]*\\}\\s*=`).test(text);
  return passedWhole && leafRead;
}

describe('every SVC_* variable takes effect or says plainly that it does not yet', () => {
  const text = sources();
  const table = variableTable();
  const used = new Map(table.map((v) => [v.name, fieldsOf(v.name).some((f) => isRead(f, text))]));

  it('no variable described as working is used nowhere', () => {
    const ignored = table.filter((v) => !v.notYet && used.get(v.name) !== true).map((v) => v.name);
    expect(ignored).toEqual([]);
  });

  it('no variable flagged "not yet" is in use (drop the flag when it takes effect)', () => {
    const wired = table.filter((v) => v.notYet && used.get(v.name) === true).map((v) => v.name);
    expect(wired).toEqual([]);
  });

  it('docs/configuration.md says "not yet" on exactly the flagged variables', () => {
    const rows = configurationMarkdown()
      .split('\n')
      .filter((l) => l.startsWith('| `SVC_'));
    for (const v of table) {
      const row = rows.find((r) => r.startsWith(`| \`${v.name}\``)) ?? '';
      if (v.notYet) expect(row, v.name).toContain('**not yet**: read and checked, no effect yet');
      else expect(row, v.name).not.toContain('not yet');
    }
  });

  it('the start log and doctor say "not yet" beside a flagged variable that is set', () => {
    const d = describeConfig({ SVC_ANTIDEBUG: '1', SVC_PORT: '8701' });
    expect(d['SVC_ANTIDEBUG']).toBe('1 (not yet: no effect)');
    expect(d['SVC_ML_DIR']).toBe('(default)');
    expect(d['SVC_PORT']).toBe('8701');
    // A secret that takes effect shows as *** alone, never its value.
    const secret = describeConfig({ SVC_CAUSAL_TOKEN: 'token-planted' });
    expect(secret['SVC_CAUSAL_TOKEN']).toBe('***');
  });

  it('the mail variables are among those that take effect', () => {
    const mail = table.filter((v) => /^SVC_(MAIL|SMTP)_/.test(v.name));
    expect(mail.map((v) => [v.name, v.notYet, used.get(v.name)])).toEqual(
      mail.map((v) => [v.name, false, true]),
    );
  });
});
