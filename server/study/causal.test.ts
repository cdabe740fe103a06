// The causal discovery client's refusals that need no server: a URL carrying credentials is
// never fetched (fetch would name the whole URL, password included, in its error).
import { describe, expect, it } from 'vitest';
import { discoverLinks } from './causal.js';

describe('discoverLinks', () => {
  it('refuses a URL with a user name or password, without showing them', async () => {
    const answer = await discoverLinks(
      { url: 'http://study:s3cret-pw@127.0.0.1:9/links', token: null, tau: 3, timeoutS: 1 },
      [{ service: 'app', reading: 'cpu', values: [1, 2, 3] }],
      300,
    );
    expect(answer).toEqual({
      ok: false,
      why: 'SVC_CAUSAL_URL carries a user name or password, which is never sent: set SVC_CAUSAL_TOKEN (or SVC_CAUSAL_TOKEN_FILE) instead',
    });
    expect(JSON.stringify(answer)).not.toContain('s3cret-pw');
  });
});
