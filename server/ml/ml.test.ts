// ML artefacts: what verifies and what is refused, on real files in a temporary folder.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMlArtefacts,
  mlArtefactsCheck,
  readMlDir,
  relationSuggestions,
  signArtefact,
  signerKey,
  trustKeyOf,
  verifyArtefact,
  type ArtefactFile,
} from './index.js';

const pair = () => generateKeyPairSync('ed25519');
const install = pair();
const trusted = pair();
const stranger = pair();
const installSigner = signerKey('this install', install.publicKey);
const trustPem = trusted.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const relations = (links: unknown[] = [{ from: 'api', to: 'db', strength: 0.7, lag_s: 60 }]) => ({
  artefact: { kind: 'relations', name: 'weekly-pcmci', made: '2026-11-20', body: { links } },
  signatures: [],
});
const signed = (file: ArtefactFile, ...keys: KeyObject[]): ArtefactFile =>
  keys.reduce((f, k) => signArtefact(f, k), file);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ml-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});
const put = (name: string, value: unknown) => {
  writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
};

describe('an artefact verifies only with every signature it needs', () => {
  it('is used when this install signed it, and refused once any value changes', () => {
    const file = signed(relations(), install.privateKey);
    expect(verifyArtefact(file, [installSigner])).toMatchObject({
      ok: true,
      signers: ['this install'],
    });
    const changed = structuredClone(file) as { artefact: { body: { links: { to: string }[] } } };
    changed.artefact.body.links[0]!.to = 'cache';
    expect(verifyArtefact(changed, [installSigner])).toEqual({
      ok: false,
      why: 'the signature by this install does not match: the artefact changed after signing',
    });
  });

  it('refuses an unsigned one, one signed by another key, and a forged key id', () => {
    expect(verifyArtefact(relations(), [installSigner])).toMatchObject({
      ok: false,
      why: `not signed by this install (key ${installSigner.id})`,
    });
    const other = signed(relations(), stranger.privateKey);
    expect(verifyArtefact(other, [installSigner]).ok).toBe(false);
    // The stranger's signature under this install's key id: the id only picks the key.
    const forged = {
      ...other,
      signatures: other.signatures.map((s) => ({ ...s, key: installSigner.id })),
    };
    expect(verifyArtefact(forged, [installSigner])).toMatchObject({
      ok: false,
      why: expect.stringContaining('does not match') as string,
    });
  });

  it('with SVC_ML_TRUST, needs that key as well as this install', () => {
    const trust = trustKeyOf(trustPem);
    if (trust === null || 'problem' in trust) throw new Error('the trust key does not read');
    const both = [installSigner, trust];
    expect(verifyArtefact(signed(relations(), install.privateKey), both)).toMatchObject({
      ok: false,
      why: `not signed by SVC_ML_TRUST (key ${trust.id})`,
    });
    expect(verifyArtefact(signed(relations(), trusted.privateKey), both).ok).toBe(false);
    expect(
      verifyArtefact(signed(relations(), trusted.privateKey, install.privateKey), both),
    ).toMatchObject({ ok: true, signers: ['this install', 'SVC_ML_TRUST'] });
  });

  it('signing again replaces the signer’s earlier signature', () => {
    const twice = signed(relations(), install.privateKey, install.privateKey);
    expect(twice.signatures).toHaveLength(1);
  });
});

describe('SVC_ML_TRUST', () => {
  it('reads PEM text or a PEM file; anything else is a problem named', () => {
    const path = join(dir, 'trust.pem');
    writeFileSync(path, trustPem);
    expect(trustKeyOf(path)).toMatchObject({ name: 'SVC_ML_TRUST' });
    expect(trustKeyOf(join(dir, 'nowhere.pem'))).toEqual({
      problem: 'SVC_ML_TRUST is neither a PEM public key nor a readable file: ENOENT',
    });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    expect(trustKeyOf(rsa.export({ type: 'spki', format: 'pem' }).toString())).toEqual({
      problem: 'SVC_ML_TRUST is a rsa key, not Ed25519',
    });
    expect(trustKeyOf(null)).toBeNull();
  });
});

describe('the folder', () => {
  it('uses what verifies and refuses everything else with the reason', () => {
    put('good.json', signed(relations(), install.privateKey));
    put('unsigned.json', relations());
    put('notes.txt', 'hello');
    put('broken.json', '{"artefact":');
    put(
      'model.json',
      signed(
        { artefact: { kind: 'anomaly-model', name: 'm', body: {} }, signatures: [] },
        install.privateKey,
      ),
    );
    put(
      'bad-body.json',
      signed(relations([{ from: 'api', to: 'db', strength: 2 }]), install.privateKey),
    );
    put('.good.json.signing', 'half a file');
    mkdirSync(join(dir, 'old.json'));
    const report = readMlDir(dir, installSigner, null);
    expect(report.used.map((a) => [a.file, a.name, a.relations])).toEqual([
      ['good.json', 'weekly-pcmci', [{ from: 'api', to: 'db', strength: 0.7, lag_s: 60 }]],
    ]);
    expect(report.refused).toEqual([
      { file: 'bad-body.json', why: '`body.links[0].strength` is not a number from 0 to 1' },
      { file: 'broken.json', why: 'not JSON' },
      {
        file: 'model.json',
        why: 'kind anomaly-model is not one this version uses (relations)',
      },
      { file: 'notes.txt', why: 'not a .json artefact file' },
      { file: 'old.json', why: 'not a file' },
      { file: 'unsigned.json', why: `not signed by this install (key ${installSigner.id})` },
    ]);
  });

  it('refuses everything while SVC_ML_TRUST cannot be read, and the doctor fails naming it', () => {
    put('good.json', signed(relations(), install.privateKey, trusted.privateKey));
    const report = readMlDir(dir, installSigner, trustKeyOf('not a key'));
    expect(report.used).toEqual([]);
    expect(report.refused[0]?.why).toMatch(/^SVC_ML_TRUST is neither a PEM public key/);
    expect(mlArtefactsCheck(() => report).run()).toMatchObject({ status: 'fail' });
  });

  it('is read again when a file changes, and its links become suggestions with evidence', () => {
    const ml = createMlArtefacts({ dir, installKey: () => install.publicKey, trust: null });
    expect(mlArtefactsCheck(() => ml.report()).run()).toMatchObject({
      status: 'ok',
      detail: `no ML artefacts in ${dir}`,
    });
    put('links.json', relations());
    expect(mlArtefactsCheck(() => ml.report()).run()).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('links.json: not signed by this install') as string,
      hint: expect.stringContaining('svc-core ml sign FILE') as string,
    });
    expect(relationSuggestions(ml.report())).toEqual([]);
    put('links.json', signed(relations(), install.privateKey));
    expect(relationSuggestions(ml.report())).toEqual([
      {
        from: 'api',
        to: 'db',
        score: 0.7,
        evidence:
          'ML artefact weekly-pcmci (links.json, signed by this install): db leads api by 60 s',
      },
    ]);
    expect(mlArtefactsCheck(() => ml.report()).run()).toMatchObject({ status: 'ok' });
  });

  it('refuses all while this install has no key, and a missing folder is no artefacts', () => {
    put('good.json', signed(relations(), install.privateKey));
    expect(readMlDir(dir, null, null).refused).toEqual([
      { file: 'good.json', why: 'this install has no key yet to verify with' },
    ]);
    expect(readMlDir(join(dir, 'absent'), installSigner, null)).toMatchObject({
      present: false,
      used: [],
      refused: [],
    });
  });
});
