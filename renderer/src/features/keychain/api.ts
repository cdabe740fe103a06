// The keychain (docs/keychain.md): the wire shapes of GET /v1/keychain and its actions (the
// server's own types, server/keychain/keychain.schemas.ts) and their calls. Site keys and
// sealed files are answers of actions (mutations), never queries: a key is shown once and
// must not outlive the page in a cache.
import type {
  KeychainView,
  SealedAnswer,
  SiteKeysBody,
  SiteKeysCreated,
  UnsealAnswer,
} from '../../../../server/keychain/keychain.schemas.js';
import { call } from '../../shared/api.js';

export type { KeychainView, SealedAnswer, SiteKeysCreated, UnsealAnswer };
export type KeychainRole = KeychainView['role'];
export type KeychainMember = KeychainView['members'][number];
export type SiteKeyRow = KeychainView['site_keys'][number];
/** On the home: the pairing window (null before the first) and the requests in it. */
export type PairingView = NonNullable<KeychainView['pairing']>;
/** On the home: an install asking to pair, with the code this home shows for it. */
export type PairingRequest = PairingView['requests'][number];
/** On an install asking a home to pair: its request (the latest), with the code it shows. */
export type JoiningView = NonNullable<KeychainView['joining']>;
/**
 * A handover of the home to a member. On the home: the latest offer, with the six digits
 * while it is open. On the member offered to: `offered` (or `expired`), without the code.
 */
export type HandoverView = NonNullable<KeychainView['handover']>;
/** POST /v1/keychain/site-keys. */
export type SiteKeysInput = SiteKeysBody;

export const keychainApi = {
  view: () => call<KeychainView>('GET', '/v1/keychain'),
  makeHome: (label: string) => call<KeychainView>('POST', '/v1/keychain/home', { label }),
  createSiteKeys: (body: SiteKeysInput) =>
    call<SiteKeysCreated>('POST', '/v1/keychain/site-keys', body),
  revoke: (id: string) => call<KeychainView>('POST', '/v1/keychain/site-keys/revoke', { id }),
  removeMember: (fingerprint: string) =>
    call<KeychainView>('POST', '/v1/keychain/members/remove', { fingerprint }),
  rename: (label: string, fingerprint?: string) =>
    call<KeychainView>('POST', '/v1/keychain/rename', {
      label,
      ...(fingerprint !== undefined && { fingerprint }),
    }),
  pull: () => call<KeychainView>('POST', '/v1/keychain/pull', {}),
  scope: (skip: string[]) => call<KeychainView>('POST', '/v1/keychain/scope', { skip }),
  own: (part: string, own: boolean) =>
    call<KeychainView>('POST', '/v1/keychain/own', { part, own }),
  openWindow: () => call<KeychainView>('POST', '/v1/keychain/window', {}),
  join: (address: string, label: string) =>
    call<KeychainView>('POST', '/v1/keychain/join', { address, label }),
  joinConfirm: (code: string) => call<KeychainView>('POST', '/v1/keychain/join/confirm', { code }),
  joinCancel: () => call<KeychainView>('POST', '/v1/keychain/join/cancel', {}),
  confirmMember: (fingerprint: string, code: string) =>
    call<KeychainView>('POST', '/v1/keychain/members/confirm', { fingerprint, code }),
  approveSeat: (request: string) =>
    call<KeychainView>('POST', '/v1/keychain/joins/approve', { request }),
  leave: () => call<KeychainView>('POST', '/v1/keychain/leave', {}),
  offerHandover: (fingerprint: string) =>
    call<KeychainView>('POST', '/v1/keychain/handover', { fingerprint }),
  cancelHandover: () => call<KeychainView>('POST', '/v1/keychain/handover/cancel', {}),
  acceptHandover: (code: string) =>
    call<KeychainView>('POST', '/v1/keychain/handover/accept', { code }),
  takeOver: (force: boolean) =>
    call<KeychainView>('POST', '/v1/keychain/take-over', force ? { force: true } : {}),
  seal: (passphrase: string) => call<SealedAnswer>('POST', '/v1/keychain/seal', { passphrase }),
  unseal: (file: string, passphrase: string) =>
    call<UnsealAnswer>('POST', '/v1/keychain/unseal', { file, passphrase }),
};
