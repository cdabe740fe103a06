// The JSON logs never carry a credential: Authorization headers, token/password/secret
// fields (top level and nested) and Secret values all print as ***.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { Secret } from './shared/secret.js';

function memoryLogger() {
  const lines: string[] = [];
  const log = createLogger('info', { write: (s: string) => void lines.push(s) });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { log, lines, records };
}

describe('logger', () => {
  it('writes one JSON record per line with level, msg and the service name', () => {
    const { log, records } = memoryLogger();
    log.info({ seq: 3 }, 'hello');
    log.debug('not at info level');
    expect(records()).toHaveLength(1);
    expect(records()[0]).toMatchObject({ level: 30, msg: 'hello', seq: 3, svc: 'svc' });
  });

  it('never prints an Authorization header', () => {
    const { log, lines, records } = memoryLogger();
    log.info(
      {
        req: {
          method: 'GET',
          url: '/v1/ledger?token=query-secret-token',
          headers: {
            authorization: 'Bearer abc-secret-token',
            cookie: 'session=cookie-secret',
            host: 'svc',
            'x-api-key': 'api-key-secret',
          },
        },
      },
      'request',
    );
    log.info(
      { res: { statusCode: 200, headers: { 'set-cookie': 'session=set-cookie-secret' } } },
      'response',
    );
    log.info({ headers: { authorization: 'Bearer other-secret-token' } }, 'outgoing call');
    const out = lines.join('');
    for (const s of [
      'abc-secret-token',
      'cookie-secret',
      'api-key-secret',
      'set-cookie-secret',
      'other-secret-token',
      'query-secret-token',
      'Bearer',
    ])
      expect(out).not.toContain(s);
    const [req, res, call] = records();
    // A request prints as method and path: no headers, no query string.
    expect(req?.['req']).toStrictEqual({ method: 'GET', url: '/v1/ledger' });
    expect(res?.['res']).toStrictEqual({ statusCode: 200, headers: { 'set-cookie': '***' } });
    expect(call?.['headers']).toStrictEqual({ authorization: '***' });
  });

  it('never prints token, password or secret values, at the top level or nested', () => {
    const { log, lines, records } = memoryLogger();
    log.info(
      {
        token: 'top-token',
        password: 'top-password',
        secret: 'top-secret',
        passphrase: 'top-passphrase',
        keep: 'visible-0',
      },
      'top',
    );
    log.info(
      {
        user: {
          name: 'alice',
          token: 'one-token',
          password: 'one-password',
          secret: 'one-secret',
          passphrase: 'one-passphrase',
        },
      },
      'one deep',
    );
    log.info(
      {
        connector: {
          settings: {
            token: 'two-token',
            password: 'two-password',
            secret: 'two-secret',
            passphrase: 'two-passphrase',
            url: 'https://x',
          },
        },
      },
      'two deep',
    );
    const out = lines.join('');
    for (const depth of ['top', 'one', 'two']) {
      for (const field of ['token', 'password', 'secret', 'passphrase']) {
        expect(out, `${depth}-${field}`).not.toContain(`${depth}-${field}`);
      }
    }
    const [top, one, two] = records();
    expect(top).toMatchObject({
      token: '***',
      password: '***',
      secret: '***',
      passphrase: '***',
      keep: 'visible-0',
    });
    expect(one?.['user']).toStrictEqual({
      name: 'alice',
      token: '***',
      password: '***',
      secret: '***',
      passphrase: '***',
    });
    expect(two?.['connector']).toStrictEqual({
      settings: {
        token: '***',
        password: '***',
        secret: '***',
        passphrase: '***',
        url: 'https://x',
      },
    });
  });

  it('does not change the logged object', () => {
    const { log } = memoryLogger();
    const obj = { user: { token: 'still-here' } };
    log.info(obj, 'x');
    expect(obj.user.token).toBe('still-here');
  });

  it('a Secret prints as *** wherever it appears', () => {
    const { log, lines, records } = memoryLogger();
    const s = new Secret('the-real-value');
    log.info({ key: s, nested: { apiKey: s, list: [s] } }, `model key ${String(s)}`);
    // A Secret in a template string is what this checks.
    // eslint-disable-next-line @typescript-eslint/restrict-template-expressions
    log.info(`template ${s}`);
    const out = lines.join('');
    expect(out).not.toContain('the-real-value');
    const [first, second] = records();
    expect(first).toMatchObject({
      key: '***',
      nested: { apiKey: '***', list: ['***'] },
      msg: 'model key ***',
    });
    expect(second?.['msg']).toBe('template ***');
    expect(JSON.stringify({ s })).toBe('{"s":"***"}');
    expect(inspect({ s })).not.toContain('the-real-value');
    expect(s.reveal()).toBe('the-real-value');
  });
});
