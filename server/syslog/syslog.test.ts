import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../config.js';
import {
  byteLength,
  escapeSdValue,
  FACILITY_CODES,
  facilityCode,
  formatMessage,
  MAX_MESSAGE_BYTES,
  MAX_UDP_BYTES,
  maskSecrets,
  octetFrame,
  priority,
  type FormatOptions,
} from './format.js';
import { severityOf } from './select.js';
import {
  createSyslogForwarder,
  describeDestination,
  isSelected,
  parseDestination,
  SECURITY_PREFIXES,
  type SyslogEvent,
} from './syslog.js';
import { rateLimited } from './transports.js';

const event = (over: Partial<SyslogEvent> = {}): SyslogEvent => ({
  seq: 42,
  ts: '2026-03-01T10:20:30.123Z',
  type: 'auth.signin',
  actor: 'alice',
  data: { method: 'password' },
  reason: null,
  trace_id: 'trace-1',
  ...over,
});

const opts = (over: Partial<FormatOptions> = {}): FormatOptions => ({
  facility: FACILITY_CODES['authpriv'] ?? -1,
  hostname: 'svc-eu-1',
  appName: 'svc',
  procId: '1234',
  maxBytes: MAX_MESSAGE_BYTES,
  ...over,
});

/** The MSG part after the SD element: "TEXT JSON". */
const jsonOf = (line: string): Record<string, unknown> =>
  JSON.parse(line.slice(line.indexOf(' {') + 1)) as Record<string, unknown>;

const silentLog = { warn: () => {} };

describe('PRI', () => {
  it('is facility * 8 + severity', () => {
    expect(priority(facilityCode('authpriv'), 5)).toBe(85);
    expect(priority(facilityCode('kern'), 4)).toBe(4);
    expect(priority(facilityCode('local7'), 6)).toBe(190);
    expect(priority(facilityCode('auth'), 5)).toBe(37);
  });

  it('maps every facility config.ts accepts, each to its own code 0..23', () => {
    const accepted = VARIABLES.SVC_SYSLOG_FACILITY.accepts.replace(/^one of /, '').split(', ');
    expect(accepted).toHaveLength(24);
    const codes = accepted.map((name) => facilityCode(name));
    expect([...codes].sort((a, b) => a - b)).toEqual([...Array(24).keys()]);
    expect(facilityCode('authpriv')).toBe(10);
    expect(facilityCode('ntp')).toBe(12);
    expect(facilityCode('solaris-cron')).toBe(15);
    expect(facilityCode('local0')).toBe(16);
  });

  it('refuses an unknown facility', () => {
    expect(() => facilityCode('nope')).toThrow(/unknown syslog facility/);
    expect(() =>
      createSyslogForwarder(
        { destination: 'off', events: ['security'], facility: 'nope' },
        { instance: 'i', log: silentLog },
      ),
    ).toThrow(/facility/);
  });

  it('takes the severity from the event type', () => {
    expect(severityOf('auth.signin')).toBe(5);
    expect(severityOf('licence.activated')).toBe(5);
    expect(severityOf('system.halt')).toBe(5);
    expect(severityOf('auth.signin_failed')).toBe(4);
    expect(severityOf('access.denied')).toBe(4);
    expect(severityOf('ledger.tamper_detected')).toBe(4);
    expect(severityOf('licence.refused')).toBe(4);
    expect(severityOf('action.failed')).toBe(4);
    expect(severityOf('signal.received')).toBe(6);
  });

  it('sends every sign-in, failure, role change and bootstrap as a security event', () => {
    const types = {
      'auth.signed_in': 5,
      'auth.signed_out': 5,
      'auth.sign_in_failed': 4,
      'auth.password_set': 5,
      'access.user_created': 5,
      'access.role_changed': 5,
      'access.user_deleted': 5,
      'access.team_updated': 5,
      'system.bootstrap': 5,
    };
    for (const [type, severity] of Object.entries(types)) {
      expect(isSelected(type, ['security']), type).toBe(true);
      expect(severityOf(type), type).toBe(severity);
    }
  });

  it('is written at the start of the message', () => {
    expect(formatMessage(event(), opts()).line).toMatch(/^<85>1 /);
    expect(formatMessage(event({ type: 'auth.signin_failed' }), opts()).line).toMatch(/^<84>1 /);
    expect(formatMessage(event({ type: 'signal.received' }), opts({ facility: 23 })).line).toMatch(
      /^<190>1 /,
    );
  });
});

describe('RFC 5424 layout', () => {
  it('has every header field, the SD element and a short text with the JSON', () => {
    const { line, pri, local } = formatMessage(event(), opts());
    expect(line).toBe(
      '<85>1 2026-03-01T10:20:30.123Z svc-eu-1 svc 1234 auth.signin [svc@32473 seq="42" actor="alice" trace="trace-1"] ' +
        'auth.signin by alice {"type":"auth.signin","actor":"alice","reason":null,"data":{"method":"password"}}',
    );
    expect(pri).toBe(85);
    expect(local).toBe(line.slice(line.indexOf('[svc@32473')));
  });

  it('sanitises HOSTNAME and MSGID to printable ASCII without spaces, capped', () => {
    const { line } = formatMessage(
      event({ type: `x.${'y'.repeat(40)}` }),
      opts({ hostname: 'my höst\n' }),
    );
    const fields = line.split(' ');
    expect(fields[2]).toBe('my_h_st_');
    expect(fields[5]).toBe(`x.${'y'.repeat(30)}`);
    const long = formatMessage(event(), opts({ hostname: 'h'.repeat(300) })).line.split(' ')[2];
    expect(long).toHaveLength(255);
    expect(formatMessage(event(), opts({ hostname: '' })).line.split(' ')[2]).toBe('-');
  });

  it('writes NILVALUE for an unreadable timestamp and omits a missing trace', () => {
    const { line } = formatMessage(event({ ts: 'yesterday', trace_id: null }), opts());
    expect(line).toContain(' - svc-eu-1 ');
    expect(line).toContain('[svc@32473 seq="42" actor="alice"]');
  });
});

describe('SD-PARAM escaping', () => {
  it('escapes ", \\ and ]', () => {
    expect(escapeSdValue('a"b\\c]d')).toBe('a\\"b\\\\c\\]d');
    expect(escapeSdValue('plain [x]')).toBe('plain [x\\]');
  });

  it('applies to the actor and trace, and keeps them on one line', () => {
    const { line } = formatMessage(event({ actor: 'ev"il]\\\nname', trace_id: 't]"' }), opts());
    expect(line).toContain('[svc@32473 seq="42" actor="ev\\"il\\]\\\\ name" trace="t\\]\\""]');
    expect(line).not.toContain('\n');
  });
});

describe('secret masking', () => {
  it('masks secret-looking keys at any depth', () => {
    const masked = maskSecrets({
      user: 'alice',
      token: 't0ps3cret',
      api_key: 'k',
      nested: { Authorization: 'Bearer x', cookie: 'c', session_cookie: 'c2' },
      list: [{ password: 'p' }, { passphrase: 'pp' }, { client_secret: 's' }],
      key_id: 'kid-1',
      keychain: 'peer-1',
    });
    expect(masked).toEqual({
      user: 'alice',
      token: '***',
      api_key: '***',
      nested: { Authorization: '***', cookie: '***', session_cookie: '***' },
      list: [{ password: '***' }, { passphrase: '***' }, { client_secret: '***' }],
      key_id: 'kid-1',
      keychain: 'peer-1',
    });
  });

  it('never lets the values reach the message', () => {
    const { line } = formatMessage(
      event({ data: { refreshToken: 'SEKRIT-1', privateKey: 'SEKRIT-2' } }),
      opts(),
    );
    expect(line).not.toContain('SEKRIT');
    expect(jsonOf(line)['data']).toEqual({ refreshToken: '***', privateKey: '***' });
  });

  it('turns values JSON cannot hold into text', () => {
    expect(maskSecrets({ n: 10n, when: new Date('2026-01-01T00:00:00Z') })).toEqual({
      n: '10',
      when: '2026-01-01T00:00:00.000Z',
    });
  });
});

describe('size limits', () => {
  const header = (line: string) => line.slice(0, line.indexOf('] ') + 1);

  it.each([
    ['8 KiB', MAX_MESSAGE_BYTES],
    ['UDP 2048', MAX_UDP_BYTES],
  ])('cuts the data, never the header (%s)', (_name, maxBytes) => {
    const big = event({ data: { note: 'x'.repeat(20_000), other: 1 } });
    const { line } = formatMessage(big, opts({ maxBytes }));
    expect(byteLength(line)).toBeLessThanOrEqual(maxBytes);
    expect(byteLength(line)).toBeGreaterThan(maxBytes - 20);
    expect(header(line)).toBe(header(formatMessage(event(), opts()).line));
    const json = jsonOf(line);
    expect(json['type']).toBe('auth.signin');
    expect(json['data']).toMatchObject({
      truncated: true,
      bytes: byteLength(JSON.stringify(big.data)),
    });
    expect(String((json['data'] as { head: string }).head)).toMatch(/^\{"note":"xxx/);
  });

  it('cuts multi-byte text on a character boundary', () => {
    const { line } = formatMessage(
      event({ data: { note: '€😀'.repeat(5000) } }),
      opts({ maxBytes: MAX_UDP_BYTES }),
    );
    expect(byteLength(line)).toBeLessThanOrEqual(MAX_UDP_BYTES);
    expect(line).not.toContain('\ufffd');
    expect(() => jsonOf(line)).not.toThrow();
  });

  it('cuts a huge reason once the data is down to its marker', () => {
    const { line } = formatMessage(
      event({ reason: 'r'.repeat(10_000), data: { a: 'b'.repeat(5000) } }),
      opts(),
    );
    expect(byteLength(line)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const json = jsonOf(line);
    expect(String(json['reason'])).toMatch(/^r+…$/);
    expect(json['data']).toMatchObject({ truncated: true, head: '' });
  });

  it('leaves a message that fits alone', () => {
    const { line } = formatMessage(
      event({ data: { note: 'y'.repeat(1500) } }),
      opts({ maxBytes: MAX_UDP_BYTES }),
    );
    expect(jsonOf(line)['data']).toEqual({ note: 'y'.repeat(1500) });
  });

  it('holds the header under the UDP limit whatever the actor, trace and instance', () => {
    const { line } = formatMessage(
      event({ actor: '"]\\'.repeat(1000), trace_id: '😀'.repeat(1000), type: 't'.repeat(1000) }),
      opts({ hostname: 'h'.repeat(1000), maxBytes: MAX_UDP_BYTES }),
    );
    expect(byteLength(line)).toBeLessThanOrEqual(MAX_UDP_BYTES);
    expect(line).toMatch(/^<\d+>1 \S+ h{255} svc 1234 t{32} \[svc@32473 /);
  });
});

describe('isSelected', () => {
  it('security selects the security prefixes and the three system events', () => {
    for (const type of [
      'auth.signin_failed',
      'access.denied',
      'licence.activated',
      'keychain.joined',
      'config.changed',
      'ledger.sealed',
      'system.halt',
      'system.resume',
      'system.bootstrap',
    ]) {
      expect(isSelected(type, ['security']), type).toBe(true);
    }
    for (const type of [
      'signal.received',
      'incident.opened',
      'system.started',
      'authz',
      'licensing.x',
    ]) {
      expect(isSelected(type, ['security']), type).toBe(false);
    }
    expect(SECURITY_PREFIXES).toContain('licence.');
  });

  it('all selects everything', () => {
    expect(isSelected('signal.received', ['all'])).toBe(true);
    expect(isSelected('anything', ['security', 'all'])).toBe(true);
  });

  it('other entries are type prefixes, combined with security', () => {
    expect(isSelected('incident.opened', ['incident.'])).toBe(true);
    expect(isSelected('incident.opened', ['action.'])).toBe(false);
    expect(isSelected('signal.received', ['security', 'signal.'])).toBe(true);
    expect(isSelected('auth.signin', ['security', 'signal.'])).toBe(true);
    expect(isSelected('auth.signin', [])).toBe(false);
  });
});

describe('octet-counting framing', () => {
  it('prefixes the length in bytes and a space', () => {
    expect(octetFrame('<85>1 - - - - - - hi')).toBe('20 <85>1 - - - - - - hi');
    expect(octetFrame('€')).toBe('3 €');
    expect(octetFrame('')).toBe('0 ');
  });
});

describe('destinations', () => {
  it('parses what config.ts accepts, with the default ports', () => {
    expect(parseDestination('udp://127.0.0.1')).toEqual({
      kind: 'udp',
      host: '127.0.0.1',
      port: 514,
    });
    expect(parseDestination('tcp://logs.example:1514')).toEqual({
      kind: 'tcp',
      host: 'logs.example',
      port: 1514,
    });
    expect(parseDestination('tls://logs.example')).toEqual({
      kind: 'tls',
      host: 'logs.example',
      port: 6514,
    });
    expect(parseDestination('tcp://[::1]:600')).toEqual({ kind: 'tcp', host: '::1', port: 600 });
    expect(parseDestination('/run/syslog.sock')).toEqual({
      kind: 'unix',
      path: '/run/syslog.sock',
    });
    expect(parseDestination('off')).toEqual({ kind: 'off' });
    expect(() => parseDestination('http://x')).toThrow(/SVC_SYSLOG/);
    for (const v of ['auto', 'off', 'stdout', '/dev/log', 'udp://h', 'tcp://h:1', 'tls://h']) {
      expect(VARIABLES.SVC_SYSLOG.parse(v), v).toBe(v);
    }
  });

  it('auto is /dev/log when it exists, else stdout', () => {
    expect(parseDestination('auto', () => true)).toEqual({ kind: 'unix', path: '/dev/log' });
    expect(parseDestination('auto', () => false)).toEqual({ kind: 'stdout' });
  });

  it('never shows credentials', () => {
    expect(describeDestination(parseDestination('tcp://user:pw@logs.example'))).toBe(
      'tcp://logs.example:514',
    );
    expect(describeDestination(parseDestination('tls://[::1]'))).toBe('tls://[::1]:6514');
  });
});

describe('forwarder', () => {
  const capture = () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    return {
      out,
      lines: () =>
        chunks
          .join('')
          .split('\n')
          .filter((l) => l !== ''),
    };
  };
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('stdout: one line per selected event', async () => {
    const { out, lines } = capture();
    const fwd = createSyslogForwarder(
      { destination: 'stdout', events: ['security'], facility: 'authpriv' },
      { instance: 'svc-eu-1', log: silentLog, stdout: out },
    );
    expect(fwd.destination).toBe('stdout');
    fwd.forward(event({ seq: 1, type: 'signal.received' }));
    fwd.forward(event({ seq: 2, type: 'auth.signin_failed' }));
    fwd.forward(event({ seq: 3, type: 'ledger.sealed', data: { size: 1000, root: 'abc' } }));
    await tick();
    const written = lines();
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(
      /^<84>1 2026-03-01T10:20:30\.123Z svc-eu-1 svc \d+ auth\.signin_failed \[svc@32473 seq="2" /,
    );
    expect(written[1]).toMatch(
      /^<85>1 .* ledger\.sealed \[svc@32473 seq="3" .*"data":\{"size":1000,"root":"abc"\}\}$/,
    );
    expect(fwd.stats()).toEqual({ sent: 2, dropped: 0, queued: 0 });
    await fwd.close();
  });

  it('uses the app name and facility given', async () => {
    const { out, lines } = capture();
    const fwd = createSyslogForwarder(
      { destination: 'stdout', events: ['all'], facility: 'local3' },
      { instance: 'i', appName: 'svc-core', log: silentLog, stdout: out },
    );
    fwd.forward(event({ type: 'signal.received' }));
    await tick();
    expect(lines()[0]).toMatch(/^<158>1 \S+ i svc-core /);
  });

  it('off: forward does nothing', async () => {
    const fwd = createSyslogForwarder(
      { destination: 'off', events: ['all'], facility: 'authpriv' },
      { instance: 'i', log: silentLog },
    );
    fwd.forward(event());
    expect(fwd.destination).toBe('off');
    expect(fwd.stats()).toEqual({ sent: 0, dropped: 0, queued: 0 });
    await fwd.close();
  });

  it('never throws into the caller, and warns without the event', async () => {
    const warnings: [object, string][] = [];
    const { out } = capture();
    const fwd = createSyslogForwarder(
      { destination: 'stdout', events: ['security'], facility: 'authpriv' },
      { instance: 'i', log: { warn: (o, m) => warnings.push([o, m]) }, stdout: out },
    );
    const data = {
      get boom(): string {
        throw new Error('password=hunter2');
      },
    };
    expect(() => fwd.forward(event({ data }))).not.toThrow();
    expect(fwd.stats().dropped).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain('hunter2');
    await fwd.close();
  });
});

describe('rateLimited', () => {
  it('lets one warning through per 30 s and counts the others', () => {
    let now = 0;
    const seen: object[] = [];
    const warn = rateLimited(
      (o) => seen.push(o),
      30_000,
      () => now,
    );
    warn({ a: 1 }, 'm');
    warn({ a: 2 }, 'm');
    now = 29_999;
    warn({ a: 3 }, 'm');
    now = 30_000;
    warn({ a: 4 }, 'm');
    expect(seen).toEqual([{ a: 1 }, { a: 4, suppressed: 2 }]);
  });
});
