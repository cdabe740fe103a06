// Sign-in by code (mail delivered through Debian's OpenSMTPD on loopback), by password,
// and bootstrap, over HTTP against the real services on a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusingPeer, SMTPD_WAIT_MS, startSmtpd, type Smtpd } from '../../../e2e/lab/smtpd.js';
import { createFakeClock } from '../../shared/clock.js';
import { hashPassword } from './passwords.js';
import { BENCH_ADMIN_TOKEN, signInBench, type SignInBench } from '../../testing/access/signin.js';

const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };
const USER_PASSWORD = 'correct horse battery staple 42';
const SMTP_PASSWORD = 'smtp-secret-planted-90210';

let smtpd: Smtpd;
// One OpenSMTPD per machine: another test file may hold it, so wait up to its lock's limit.
beforeAll(async () => {
  smtpd = await startSmtpd();
}, SMTPD_WAIT_MS);
afterAll(async () => {
  await smtpd?.stop();
});

async function withMail(bench: SignInBench): Promise<void> {
  const res = await bench.call({
    method: 'PUT',
    url: '/v1/settings/mail',
    headers: admin,
    payload: {
      transport: 'smtp',
      smtp: { host: '127.0.0.1', port: smtpd.port, security: 'none', from: 'svc@lab.test' },
    },
  });
  expect(res.statusCode).toBe(200);
}

/** The code in the newest mail to `to` that arrived after `before` mails. */
async function codeFor(to: string, before: number): Promise<string> {
  const raw = await smtpd.waitFor(
    (m) => smtpd.messages().indexOf(m) >= before && new RegExp(`^To: ${to}`, 'm').test(m),
  );
  const code = /sign-in code is (\d{8})/.exec(raw)?.[1];
  if (code === undefined) throw new Error(`no code in ${raw}`);
  return code;
}

const post = (bench: SignInBench, url: string, payload: object, ip = '10.1.1.1', headers = {}) =>
  bench.call({ method: 'POST', url, payload, remoteAddress: ip, headers });

describe('code sign-in', () => {
  let bench: SignInBench;
  beforeAll(async () => {
    bench = await signInBench({ delayMs: 100 });
    await withMail(bench);
    await bench.person('ann@lab.test');
  });
  afterAll(async () => {
    await bench.close();
  });

  it('mails a code that opens a session once', async () => {
    const before = smtpd.messages().length;
    const req = await post(bench, '/v1/auth/request', { email: 'Ann@Lab.test' });
    expect(req.statusCode).toBe(202);
    expect(req.json()).toEqual({ sent: true });
    const code = await codeFor('ann@lab.test', before);
    const ok = await post(bench, '/v1/auth/verify', { email: 'ann@lab.test', code });
    expect(ok.statusCode).toBe(200);
    const { token, session } = ok.json<{ token: string; session: { method: string } }>();
    expect(session.method).toBe('code');
    expect(bench.sessions.lookup(token)).toMatchObject({ kind: 'session', role: 'responder' });
    const again = await post(bench, '/v1/auth/verify', { email: 'ann@lab.test', code });
    expect(again.statusCode).toBe(401);
    expect(
      bench
        .events()
        .filter((e) => e.type === 'auth.signed_in')
        .at(-1)?.data,
    ).toMatchObject({
      method: 'code',
    });
  });

  it('answers 202 for anyone, but mails only people who may sign in', async () => {
    const res = await post(bench, '/v1/auth/request', { email: 'stranger@elsewhere.test' });
    expect(res.statusCode).toBe(202);
    await bench.signIn.settled();
    expect(smtpd.messages().some((m) => m.includes('stranger@elsewhere.test'))).toBe(false);
    expect(bench.events().at(-1)).toMatchObject({
      type: 'auth.sign_in_failed',
      data: { method: 'code', account: 'stranger@elsewhere.test', why: 'sign_in_not_allowed' },
    });
    // A domain allowed by the access settings: the person is admitted and mailed.
    await bench.allowDomains(['open.test']);
    const before = smtpd.messages().length;
    await post(bench, '/v1/auth/request', { email: 'new@open.test' });
    const code = await codeFor('new@open.test', before);
    // Nobody is created for an address until its mailbox is proven at verify.
    expect(bench.people.byEmail('new@open.test')).toBeNull();
    const ok = await post(bench, '/v1/auth/verify', { email: 'new@open.test', code });
    expect(ok.statusCode).toBe(200);
    expect(bench.people.byEmail('new@open.test')?.role).toBe('viewer');
  });

  it('answers a wrong code 401 after the wait, and kills the code after 5 wrong tries', async () => {
    const before = smtpd.messages().length;
    await bench.person('bob@lab.test');
    await post(bench, '/v1/auth/request', { email: 'bob@lab.test' });
    const code = await codeFor('bob@lab.test', before);
    const wrong = code === '00000000' ? '11111111' : '00000000';
    const started = performance.now();
    const res = await post(
      bench,
      '/v1/auth/verify',
      { email: 'bob@lab.test', code: wrong },
      '10.2.0.1',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'bad_code' });
    for (let i = 2; i <= 5; i++)
      await post(
        bench,
        '/v1/auth/verify',
        { email: 'bob@lab.test', code: wrong },
        `10.2.0.${String(i)}`,
      );
    const late = await post(bench, '/v1/auth/verify', { email: 'bob@lab.test', code }, '10.2.0.9');
    expect(late.statusCode).toBe(401);
    const whys = bench
      .events()
      .filter((e) => e.type === 'auth.sign_in_failed')
      .map((e) => e.data['why']);
    expect(whys.slice(-6)).toEqual([
      'wrong_code', 'wrong_code', 'wrong_code', 'wrong_code', 'too_many_tries', 'no_code',
    ]); // prettier-ignore
  });

  it('throttles code requests per account', async () => {
    await bench.person('cat@lab.test');
    for (let i = 0; i < 5; i++)
      expect(
        (await post(bench, '/v1/auth/request', { email: 'cat@lab.test' }, `10.3.0.${String(i)}`))
          .statusCode,
      ).toBe(202);
    const res = await post(bench, '/v1/auth/request', { email: 'cat@lab.test' }, '10.3.0.99');
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ error: 'too_many_attempts' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    await bench.signIn.settled();
  });
});

describe('an expired code', () => {
  it('is refused after 10 minutes', async () => {
    const clock = createFakeClock(new Date().toISOString());
    const bench = await signInBench({ delayMs: 0, clock });
    try {
      await withMail(bench);
      await bench.person('dan@lab.test');
      const before = smtpd.messages().length;
      await post(bench, '/v1/auth/request', { email: 'dan@lab.test' });
      const code = await codeFor('dan@lab.test', before);
      clock.advance(10 * 60 * 1000 + 1);
      const res = await post(bench, '/v1/auth/verify', { email: 'dan@lab.test', code });
      expect(res.statusCode).toBe(401);
      expect(bench.events().at(-1)?.data).toMatchObject({ why: 'expired' });
    } finally {
      await bench.close();
    }
  });
});

describe('password sign-in', () => {
  let bench: SignInBench;
  let annId: string;
  beforeAll(async () => {
    bench = await signInBench({
      delayMs: 100,
      perAccount: { max: 3, windowS: 600 },
      perAddress: { max: 6, windowS: 600 },
    });
    annId = (await bench.person('ann@lab.test')).id;
  });
  afterAll(async () => {
    await bench.close();
  });

  it('sets a password of at least 12 characters, and asks for the current one to change it', async () => {
    await expect(bench.signIn.setPassword(annId, 'short')).rejects.toMatchObject({
      details: { field: 'password' },
    });
    expect(bench.people.byId(annId)?.password_set).toBe(false);
    await bench.signIn.setPassword(annId, USER_PASSWORD);
    expect(bench.people.byId(annId)?.password_set).toBe(true);
    await expect(bench.signIn.setPassword(annId, 'another long password')).rejects.toMatchObject({
      details: { field: 'current_password' },
    });
    await expect(
      bench.signIn.setPassword(annId, 'another long password', 'not the password'),
    ).rejects.toMatchObject({ code: 'wrong_current_password' });
    await bench.signIn.setPassword(annId, 'another long password', USER_PASSWORD);
    await bench.signIn.setPassword(annId, USER_PASSWORD, 'another long password');
    expect(bench.events().filter((e) => e.type === 'auth.password_set')).toHaveLength(3);
  });

  it('signs in with the right password and refuses a wrong one after the wait', async () => {
    const ok = await post(
      bench,
      '/v1/auth/password',
      { email: 'ann@lab.test', password: USER_PASSWORD },
      '10.5.0.1',
    );
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ session: { method: 'password', role: 'responder' } });
    const started = performance.now();
    const bad = await post(
      bench,
      '/v1/auth/password',
      { email: 'ann@lab.test', password: 'wrong' },
      '10.5.0.1',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toMatchObject({ error: 'bad_password' });
    const unknown = await post(
      bench,
      '/v1/auth/password',
      { email: 'nobody@lab.test', password: 'wrong' },
      '10.5.0.2',
    );
    expect(unknown.json()).toEqual(bad.json());
  });

  it('makes a hash of older, weaker parameters again at the next sign-in', async () => {
    const old = await hashPassword(USER_PASSWORD, { N: 2 ** 14, r: 8, p: 1 });
    bench.db.prepare('UPDATE signin_passwords SET hash = ? WHERE user_id = ?').run(old, annId);
    const ok = await post(
      bench,
      '/v1/auth/password',
      { email: 'ann@lab.test', password: USER_PASSWORD },
      '10.5.0.9',
    );
    expect(ok.statusCode).toBe(200);
    const row = bench.db
      .prepare<[string], { hash: string }>('SELECT hash FROM signin_passwords WHERE user_id = ?')
      .get(annId);
    expect(row?.hash.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(bench.events().at(-2)).toMatchObject({
      type: 'auth.password_set',
      data: { user_id: annId, changed: false, rehashed: true },
    });
  });

  it('locks an account out per address: the person still signs in from elsewhere', async () => {
    await bench.person('eve@lab.test');
    await bench.signIn.setPassword(bench.people.byEmail('eve@lab.test')!.id, USER_PASSWORD);
    for (let i = 0; i < 3; i++)
      await post(bench, '/v1/auth/password', { email: 'eve@lab.test', password: 'x' }, '10.6.0.1');
    const res = await post(
      bench,
      '/v1/auth/password',
      { email: 'EVE@lab.test', password: USER_PASSWORD },
      '10.6.0.1',
    );
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({
      error: 'too_many_attempts',
      retry_after_s: expect.any(Number) as number,
    });
    const elsewhere = await post(
      bench,
      '/v1/auth/password',
      { email: 'eve@lab.test', password: USER_PASSWORD },
      '10.6.0.2',
    );
    expect(elsewhere.statusCode).toBe(200);
  });

  it('counts concurrent guesses before the hash runs: no more than the limit are tried', async () => {
    await bench.person('fay@lab.test');
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(bench, '/v1/auth/password', { email: 'fay@lab.test', password: 'guess' }, '10.6.1.1'),
      ),
    );
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(3);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(9);
    const tried = bench
      .events()
      .filter((e) => e.type === 'auth.sign_in_failed' && e.data['account'] === 'fay@lab.test');
    expect(tried.length).toBeLessThanOrEqual(3);
  });

  it('throttles per address, whatever the account', async () => {
    for (let i = 0; i < 6; i++)
      await post(
        bench,
        '/v1/auth/password',
        { email: `p${String(i)}@lab.test`, password: 'x' },
        '10.7.0.1',
      );
    const res = await post(
      bench,
      '/v1/auth/password',
      { email: 'ann@lab.test', password: USER_PASSWORD },
      '10.7.0.1',
    );
    expect(res.statusCode).toBe(429);
    const other = await post(
      bench,
      '/v1/auth/password',
      { email: 'ann@lab.test', password: USER_PASSWORD },
      '10.7.0.2',
    );
    expect(other.statusCode).toBe(200);
  });
});

describe('the 0.5 s wait', () => {
  it(
    'holds up only the wrong request: a concurrent good one answers at once',
    { timeout: 20_000 },
    async () => {
      // A long wait: the good answer includes one scrypt hash at OWASP's parameters (128 MiB,
      // up to a second or so on a busy machine), and must still come well before the wait ends.
      const bench = await signInBench({ delayMs: 3000 });
      try {
        const ann = await bench.person('ann@lab.test');
        await bench.signIn.setPassword(ann.id, USER_PASSWORD);
        const timed = async (p: Promise<{ statusCode: number }>) => {
          const t = performance.now();
          const res = await p;
          return { status: res.statusCode, ms: performance.now() - t };
        };
        const [bad, good] = await Promise.all([
          timed(
            post(bench, '/v1/auth/verify', { email: 'ann@lab.test', code: '12345678' }, '10.8.0.1'),
          ),
          timed(
            post(
              bench,
              '/v1/auth/password',
              { email: 'ann@lab.test', password: USER_PASSWORD },
              '10.8.0.2',
            ),
          ),
        ]);
        expect(bad.status).toBe(401);
        expect(bad.ms).toBeGreaterThanOrEqual(2990);
        expect(good.status).toBe(200);
        expect(good.ms).toBeLessThan(2500);
      } finally {
        await bench.close();
      }
    },
  );
});

describe('bootstrap', () => {
  let bench: SignInBench;
  beforeAll(async () => {
    bench = await signInBench({ delayMs: 50, perAddress: { max: 3, windowS: 600 } });
  });
  afterAll(async () => {
    await bench.close();
  });

  it('makes the person owner and signs them in, with the admin token only', async () => {
    await bench.person('fay@lab.test', 'viewer');
    const res = await post(
      bench,
      '/v1/auth/bootstrap',
      { email: 'fay@lab.test', name: 'Fay' },
      '10.9.0.1',
      admin,
    );
    expect(res.statusCode).toBe(200);
    const { token, session } = res.json<{
      token: string;
      session: { role: string; method: string };
    }>();
    expect(session).toMatchObject({ role: 'owner', method: 'bootstrap' });
    expect(bench.people.byEmail('fay@lab.test')?.role).toBe('owner');
    expect(bench.events().find((e) => e.type === 'system.bootstrap')?.data).toMatchObject({
      email: 'fay@lab.test',
    });
    const bySession = await post(bench, '/v1/auth/bootstrap', { email: 'x@lab.test' }, '10.9.0.1', {
      authorization: `Bearer ${token}`,
    });
    expect(bySession.statusCode).toBe(403);
    const created = await post(
      bench,
      '/v1/auth/bootstrap',
      { email: 'new-owner@lab.test' },
      '10.9.0.1',
      admin,
    );
    expect(created.statusCode).toBe(200);
    expect(bench.people.byEmail('new-owner@lab.test')?.role).toBe('owner');
  });

  it('throttles bad admin tokens per address', async () => {
    const bad = { authorization: 'Bearer not-the-admin-token' };
    for (let i = 0; i < 3; i++)
      expect(
        (await post(bench, '/v1/auth/bootstrap', { email: 'a@lab.test' }, '10.9.9.9', bad))
          .statusCode,
      ).toBe(401);
    const res = await post(bench, '/v1/auth/bootstrap', { email: 'a@lab.test' }, '10.9.9.9', admin);
    expect(res.statusCode).toBe(429);
  });
});

describe('no secret in any log line, ledger event or answer', () => {
  it('plants known secrets and finds none of them', async () => {
    const bench = await signInBench({ delayMs: 10, env: {} });
    try {
      // The SMTP password typed in (written to a 0600 file) and sent over TLS to a server
      // that refuses it and echoes it back; the codes then go through OpenSMTPD.
      const refusing = await refusingPeer(smtpd.tls);
      await bench.call({
        method: 'PUT',
        url: '/v1/settings/mail',
        headers: admin,
        payload: {
          transport: 'smtp',
          smtp: {
            host: '127.0.0.1',
            port: refusing.port,
            security: 'ssl',
            username: 'svc',
            password: { value: SMTP_PASSWORD },
            from: 'svc@lab.test',
            ca_file: smtpd.caFile,
          },
        },
      });
      const probe = await bench.call({
        method: 'POST',
        url: '/v1/settings/mail/test',
        headers: admin,
        payload: { to: 'probe@lab.test' },
      });
      await refusing.close();
      expect(probe.json()).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/refused the user name or password/) as string,
      });
      expect(refusing.seen.some((l) => l.startsWith('AUTH PLAIN'))).toBe(true);
      await withMail(bench);
      const ann = await bench.person('ann@lab.test');
      await bench.signIn.setPassword(ann.id, USER_PASSWORD);
      const before = smtpd.messages().length;
      await post(bench, '/v1/auth/request', { email: 'ann@lab.test' });
      const code = await codeFor('ann@lab.test', before);
      const wrongGuess = code === '98765432' ? '98765431' : '98765432';
      await post(bench, '/v1/auth/verify', { email: 'ann@lab.test', code: wrongGuess });
      const byCode = await post(bench, '/v1/auth/verify', { email: 'ann@lab.test', code });
      const byPassword = await post(bench, '/v1/auth/password', {
        email: 'ann@lab.test',
        password: USER_PASSWORD,
      });
      await post(bench, '/v1/auth/password', {
        email: 'ann@lab.test',
        password: `${USER_PASSWORD}!`,
      });
      const byBootstrap = await post(
        bench,
        '/v1/auth/bootstrap',
        { email: 'ann@lab.test' },
        '10.1.1.1',
        admin,
      );
      const tokens = [byCode, byPassword, byBootstrap].map(
        (r) => r.json<{ token: string }>().token,
      );
      expect(tokens.every((t) => t.startsWith('svs_'))).toBe(true);
      // Requests with the session tokens, so that they pass through the request log.
      for (const t of tokens)
        await bench.call({
          method: 'GET',
          url: '/v1/settings/mail',
          headers: { authorization: `Bearer ${t}` },
        });
      await bench.signIn.settled();

      const ledger = JSON.stringify(bench.events());
      const logs = bench.logs();
      expect(logs.length).toBeGreaterThan(1000);
      const planted = [
        USER_PASSWORD,
        `${USER_PASSWORD}!`,
        code,
        wrongGuess,
        SMTP_PASSWORD,
        BENCH_ADMIN_TOKEN,
        ...tokens,
      ];
      const forms = planted.flatMap((s) => [
        s,
        Buffer.from(s).toString('base64'),
        encodeURIComponent(s),
      ]);
      for (const s of forms) {
        expect(ledger, 'ledger').not.toContain(s);
        expect(logs, 'log').not.toContain(s);
      }
      // Answers: a session token appears only in the answer that hands it out.
      const answers = bench.answers();
      for (const s of [USER_PASSWORD, code, wrongGuess, SMTP_PASSWORD, BENCH_ADMIN_TOKEN])
        expect(answers, 'answers').not.toContain(s);
      for (const t of tokens) expect(answers.split(t).length - 1).toBe(1);
      // The ledger did record what happened.
      const types = bench.events().map((e) => e.type);
      expect(types).toEqual(
        expect.arrayContaining([
          'config.mail_set',
          'auth.signed_in',
          'auth.sign_in_failed',
          'auth.password_set',
          'system.bootstrap',
        ]),
      );
    } finally {
      await bench.close();
    }
  });
});
