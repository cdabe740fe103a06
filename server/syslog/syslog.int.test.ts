// The forwarder against Debian's rsyslogd (apt-get install rsyslog rsyslog-gnutls).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  freePort,
  hasGnutls,
  parseRecord,
  startRsyslog,
  type Rsyslog,
  type RsyslogRecord,
} from '../testing/syslog/rsyslog.js';
import {
  createSyslogForwarder,
  type SyslogDeps,
  type SyslogEvent,
  type SyslogForwarder,
} from './syslog.js';

const INSTANCE = 'svc-int-1';

let seq = 0;
const event = (type: string, data: Record<string, unknown> = {}): SyslogEvent => ({
  seq: ++seq,
  ts: new Date().toISOString(),
  type,
  actor: 'alice',
  data,
  reason: null,
  trace_id: `trace-${seq}`,
});

// Everything a test starts, stopped after it even when it fails.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of cleanups.splice(0).reverse()) await stop();
});

async function rsyslog(options: Parameters<typeof startRsyslog>[0] = {}): Promise<Rsyslog> {
  const rs = await startRsyslog(options);
  cleanups.push(() => rs.stop());
  return rs;
}

function forwarder(
  destination: string,
  extra: Partial<SyslogDeps> = {},
  events: readonly string[] = ['security'],
) {
  const warnings: { obj: object; msg: string }[] = [];
  const fwd: SyslogForwarder = createSyslogForwarder(
    { destination, events, facility: 'authpriv' },
    { instance: INSTANCE, log: { warn: (obj, msg) => warnings.push({ obj, msg }) }, ...extra },
  );
  cleanups.push(() => fwd.close());
  return { fwd, warnings };
}

/** The record rsyslog wrote for event `e`, waiting for it. */
async function received(rs: Rsyslog, e: SyslogEvent, timeoutMs = 5000): Promise<RsyslogRecord> {
  return parseRecord(await rs.waitFor((line) => isFor(parseRecord(line), e), timeoutMs));
}

function isFor(record: RsyslogRecord, e: SyslogEvent): boolean {
  return record.app === 'svc' && record.raw.includes(`[svc@32473 seq="${e.seq}" `);
}

function expectSecurityRecord(record: RsyslogRecord, e: SyslogEvent, severity: string): void {
  expect(record).toMatchObject({
    facility: 'authpriv',
    severity,
    hostname: INSTANCE,
    app: 'svc',
    msgid: e.type,
  });
  expect(record.sd).toBe(`[svc@32473 seq="${e.seq}" actor="alice" trace="${e.trace_id}"]`);
  expect(record.msg).toContain(`${e.type} by alice {"type":"${e.type}"`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('forwarding to rsyslog', () => {
  it('udp: security events arrive with facility authpriv and their severity', async () => {
    const rs = await rsyslog();
    const { fwd, warnings } = forwarder(`udp://127.0.0.1:${rs.udpPort}`);
    const ok = event('auth.signin');
    const failed = event('auth.signin_failed', { note: 'n'.repeat(5000) });
    fwd.forward(ok);
    fwd.forward(failed);
    expectSecurityRecord(await received(rs, ok), ok, 'notice');
    const big = await received(rs, failed);
    expectSecurityRecord(big, failed, 'warning');
    expect(Buffer.byteLength(big.raw)).toBeLessThanOrEqual(2048);
    expect(big.msg).toContain('"truncated":true');
    expect(fwd.stats()).toEqual({ sent: 2, dropped: 0, queued: 0 });
    expect(warnings).toEqual([]);
  });

  it('tcp: octet-counted frames arrive whole, 8 KiB ones included', async () => {
    const rs = await rsyslog();
    const { fwd, warnings } = forwarder(`tcp://127.0.0.1:${rs.tcpPort}`);
    const sealed = event('ledger.sealed', {
      size: 1000,
      root: 'ab'.repeat(32),
      token: 'must-not-leak',
    });
    const denied = event('access.denied', { note: 'n'.repeat(20_000) });
    fwd.forward(sealed);
    fwd.forward(denied);
    const record = await received(rs, sealed);
    expectSecurityRecord(record, sealed, 'notice');
    expect(record.msg).toContain('"token":"***"');
    expect(record.raw).not.toContain('must-not-leak');
    const big = await received(rs, denied);
    expectSecurityRecord(big, denied, 'warning');
    expect(Buffer.byteLength(big.raw)).toBeGreaterThan(8000);
    expect(Buffer.byteLength(big.raw)).toBeLessThanOrEqual(8192);
    await fwd.close();
    expect(fwd.stats()).toEqual({ sent: 2, dropped: 0, queued: 0 });
    expect(warnings).toEqual([]);
  });

  it.skipIf(!hasGnutls())('tls: verified against the given CA', async () => {
    const rs = await rsyslog();
    const port = rs.tlsPort ?? 0;
    const { fwd, warnings } = forwarder(`tls://127.0.0.1:${port}`, {
      ca: readFileSync(rs.caFile ?? ''),
    });
    const e = event('licence.activated', { plan: 'team' });
    fwd.forward(e);
    expectSecurityRecord(await received(rs, e), e, 'notice');
    expect(warnings).toEqual([]);

    // Without that CA the system CAs do not know the self-signed collector: nothing is sent.
    const untrusted = forwarder(`tls://127.0.0.1:${port}`);
    untrusted.fwd.forward(event('auth.signin'));
    await sleep(300);
    expect(untrusted.fwd.stats()).toMatchObject({ sent: 0, queued: 1 });
    expect(untrusted.warnings[0]?.obj).toMatchObject({
      destination: `tls://127.0.0.1:${port}`,
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });

  it('the default selection (security) forwards auth.signin_failed but not signal.received', async () => {
    const rs = await rsyslog();
    const { fwd } = forwarder(`tcp://127.0.0.1:${rs.tcpPort}`);
    const signal = event('signal.received');
    const failed = event('auth.signin_failed');
    fwd.forward(signal);
    fwd.forward(failed);
    expectSecurityRecord(await received(rs, failed), failed, 'warning');
    // One TCP stream keeps order: had the signal been sent, it would be there already.
    expect(rs.readLines().filter((l) => isFor(parseRecord(l), signal))).toEqual([]);
    expect(fwd.stats().sent).toBe(1);
  });

  it('tcp: messages queued while the collector is down arrive after it starts', async () => {
    const tcpPort = await freePort('tcp');
    const { fwd, warnings } = forwarder(`tcp://127.0.0.1:${tcpPort}`);
    const early = [event('auth.signin'), event('config.changed'), event('system.halt')];
    for (const e of early) fwd.forward(e);
    await sleep(100);
    expect(fwd.stats()).toEqual({ sent: 0, dropped: 0, queued: 3 });
    expect(warnings).toHaveLength(1); // once, not per attempt
    expect(warnings[0]?.obj).toMatchObject({
      destination: `tcp://127.0.0.1:${tcpPort}`,
      code: 'ECONNREFUSED',
    });

    const rs = await rsyslog({ tcpPort });
    for (const e of early) expectSecurityRecord(await received(rs, e, 8000), e, 'notice');
    expect(fwd.stats()).toEqual({ sent: 3, dropped: 0, queued: 0 });
  });

  it('tcp: stopping rsyslog mid-way does not throw, and a restarted one gets the rest', async () => {
    const first = await rsyslog();
    const { fwd, warnings } = forwarder(`tcp://127.0.0.1:${first.tcpPort}`);
    const before = event('auth.signin');
    fwd.forward(before);
    await received(first, before);

    await first.stop();
    await sleep(100); // let the forwarder see the connection close
    const during = [event('auth.signout'), event('access.denied')];
    expect(() => during.forEach((e) => fwd.forward(e))).not.toThrow();
    await sleep(300);
    expect(fwd.stats().queued).toBe(2);
    expect(warnings.length).toBeGreaterThanOrEqual(1);

    const second = await rsyslog({ tcpPort: first.tcpPort });
    const after = event('auth.signin');
    fwd.forward(after);
    for (const e of [...during, after]) await received(second, e, 8000);
    expect(fwd.stats()).toEqual({ sent: 4, dropped: 0, queued: 0 });
  });

  it('unix datagram socket (like /dev/log): delivered through logger', async () => {
    const rs = await rsyslog({ unixSockets: true });
    const { fwd, warnings } = forwarder(rs.dgramSocket ?? '');
    const e = event('keychain.joined');
    const failed = event('auth.signin_failed');
    fwd.forward(e);
    fwd.forward(failed);
    const record = await received(rs, e);
    // The local daemon writes its own header; ours keeps the SD element and the message.
    expect(record).toMatchObject({
      facility: 'authpriv',
      severity: 'notice',
      app: 'svc',
      procid: String(process.pid),
    });
    expect(record.msg).toContain(
      `[svc@32473 seq="${e.seq}" actor="alice" trace="${e.trace_id}"] keychain.joined by alice {`,
    );
    expect(await received(rs, failed)).toMatchObject({ facility: 'authpriv', severity: 'warning' });
    await fwd.close();
    expect(fwd.stats()).toEqual({ sent: 2, dropped: 0, queued: 0 });
    expect(warnings).toEqual([]);
  });

  it('unix stream socket: octet-counted frames like tcp', async () => {
    const rs = await rsyslog({ unixSockets: true });
    const { fwd, warnings } = forwarder(rs.streamSocket ?? '');
    const e = event('ledger.sealed');
    fwd.forward(e);
    expectSecurityRecord(await received(rs, e), e, 'notice');
    expect(warnings).toEqual([]);
  });

  it('a collector that stays down: bounded queue, one warning, close() gives up after 2 s', async () => {
    const tcpPort = await freePort('tcp');
    const { fwd, warnings } = forwarder(`tcp://127.0.0.1:${tcpPort}`);
    for (let i = 0; i < 1005; i++) fwd.forward(event('auth.signin'));
    expect(fwd.stats()).toEqual({ sent: 0, dropped: 5, queued: 1000 });
    await sleep(50);
    expect(warnings.length).toBe(1);
    const started = Date.now();
    await fwd.close();
    expect(Date.now() - started).toBeLessThan(2500);
    expect(fwd.stats()).toEqual({ sent: 0, dropped: 1005, queued: 0 });
    expect(JSON.stringify(warnings)).not.toContain('alice');
  });
});
