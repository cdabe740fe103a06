import { describe, expect, it } from 'vitest';
import {
  addedWords,
  ageText,
  checkPath,
  checkRef,
  parseLayout,
  parseLog,
  parseShow,
  withServices,
} from './git.parse.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('git output', () => {
  it('reads log -z output, odd file names, renames and commits without files', () => {
    const out =
      `\x1e${A}\0X <x@y>\x002024-01-03T01:00:00+01:00\0merge\0\0` +
      `\x1e${B}\0Y <y@z>\x002024-01-02T00:00:00Z\0two\0\0\nR087\0a\0b\nc\0M\0"q" \0`;
    expect(parseLog(out)).toEqual([
      { commit: A, author: 'X <x@y>', at: '2024-01-03T00:00:00.000Z', subject: 'merge', files: [] },
      {
        commit: B,
        author: 'Y <y@z>',
        at: '2024-01-02T00:00:00.000Z',
        subject: 'two',
        files: [
          { path: 'b\nc', status: 'renamed', from: 'a' },
          { path: '"q" ', status: 'modified' },
        ],
      },
    ]);
    expect(parseLog('')).toEqual([]);
    expect(() => parseLog('garbage\0')).toThrow(/unexpected git log output/);
  });

  it('reads show output', () => {
    expect(parseShow(`${A}\0X <x@y>\x002024-01-01T00:00:00Z\0s\0body\n\n`, '\n a | 1 +\n')).toEqual(
      {
        commit: A,
        author: 'X <x@y>',
        at: '2024-01-01T00:00:00.000Z',
        subject: 's',
        body: 'body',
        diffstat: ' a | 1 +',
      },
    );
  });

  it('checks paths and refs', () => {
    expect(checkPath('deploy/app.yaml')).toBe('deploy/app.yaml');
    expect(checkPath('a..b/c')).toBe('a..b/c');
    expect(() => checkPath('a/../b')).toThrow(/\.\./);
    expect(() => checkPath('..')).toThrow(/\.\./);
    expect(() => checkPath('C:\\x')).toThrow(/relative/);
    expect(() => checkPath('a\nb')).toThrow(/control/);
    expect(() => checkPath('')).toThrow(/argument paths/);
    expect(checkRef('origin/release-1.2')).toBe('origin/release-1.2');
    for (const bad of ['-x', 'a..b', 'a b', 'a/', 'x.lock', 'HEAD@{1}'])
      expect(() => checkRef(bad)).toThrow(/setting branch/);
  });

  it('writes ages', () => {
    expect(ageText(5_000)).toBe('5 s');
    expect(ageText(12 * 60_000)).toBe('12 min');
    expect(ageText(2 * 3_600_000)).toBe('2 h');
    expect(ageText(5 * 86_400_000)).toBe('5 d');
    expect(ageText(-1)).toBe('0 s');
  });
});

describe('what a commit changed, and whose files', () => {
  it('lists the words a change brought in that its removed lines did not have', () => {
    const patch = [
      'diff --git a/config.json b/config.json',
      '--- a/config.json',
      '+++ b/config.json',
      '@@ -3 +3 @@',
      '-    "name": "shop",',
      '+    "name": "shop_v2",',
      'diff --git a/new.conf b/new.conf',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.conf',
      '@@ -0,0 +1,2 @@',
      '+listen 127.0.0.1:8080',
      '+user www-data',
    ].join('\n');
    // A new file brings no words: an initial deploy would otherwise "name" everything.
    expect(addedWords(patch)).toEqual(['shop_v2']);
    expect(addedWords('')).toEqual([]);
  });

  it('knows whose files a commit changed: the longest layout prefix, else the repository', () => {
    const change = {
      commit: 'a'.repeat(40),
      author: 'x',
      at: '2026-03-02T10:00:00.000Z',
      subject: 's',
      files: [
        { path: 'nginx/site.conf', status: 'modified' as const },
        { path: 'nginx/tls/cert.pem', status: 'modified' as const },
      ],
    };
    const layout = parseLayout(['nginx/=nginx', 'nginx/tls/=certs'], 'app');
    expect(withServices(change, layout)).toMatchObject({
      service: 'nginx',
      services: ['nginx', 'certs'],
    });
    expect(
      withServices(
        { ...change, files: [{ path: 'README.md', status: 'modified' as const }] },
        layout,
      ),
    ).toMatchObject({ service: 'app', services: ['app'] });
    expect(withServices(change, parseLayout([], null))).toMatchObject({
      service: null,
      services: [],
    });
    expect(() => parseLayout(['nginx/'], null)).toThrow(
      'layout entry "nginx/" is not <path prefix>=<service>',
    );
  });
});
