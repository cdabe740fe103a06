import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, cassetteKey, withCassette } from './cassette.js';
import { chatBody } from './openai.js';
import { request, stubClient } from './testing.js';

const bodyOf = (r: typeof request) => chatBody(r, 'tiny', null);

describe('cassettes', () => {
  it('keys by the canonical body', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(cassetteKey({ a: 1, b: 2 })).toBe(cassetteKey({ b: 2, a: 1 }));
    expect(cassetteKey(bodyOf(request))).not.toBe(cassetteKey(bodyOf({ ...request, user: 'x' })));
  });

  it('records atomically with 0600, then replays the same answer as cached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cassette-'));
    const inner = stubClient({ enough: 'no' });
    const recorded = await withCassette(inner, { dir, mode: 'record', bodyOf }).call(request);
    const files = await readdir(dir);
    expect(files).toEqual([`${cassetteKey(bodyOf(request))}.json`]);
    expect((await stat(join(dir, files[0] ?? ''))).mode & 0o777).toBe(0o600);
    const entry = JSON.parse(await readFile(join(dir, files[0] ?? ''), 'utf8')) as unknown;
    expect(entry).toMatchObject({ purpose: 's1.enough', request: bodyOf(request) });

    const replayed = await withCassette(inner, { dir, mode: 'replay', bodyOf }).call(request);
    expect(replayed).toEqual({ ...recorded, cached: true });
    expect(inner.calls).toBe(1);
  });

  it('fails a replay miss naming the purpose and key; auto records the miss', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cassette-'));
    const inner = stubClient({ enough: 'yes' });
    const key = cassetteKey(bodyOf(request));
    const err = await withCassette(inner, { dir, mode: 'replay', bodyOf })
      .call(request)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'cassette_miss', cassetteKey: key, purpose: 's1.enough' });
    expect((err as Error).message).toContain('"s1.enough"');
    expect((err as Error).message).toContain(key);

    const auto = withCassette(inner, { dir, mode: 'auto', bodyOf });
    expect((await auto.call(request)).cached).toBe(false);
    expect((await auto.call(request)).cached).toBe(true);
    expect(inner.calls).toBe(1);
  });
});
