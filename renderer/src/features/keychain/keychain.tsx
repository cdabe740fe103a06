// The Keychain page (docs/keychain.md): this install's place (home, member of <home>, or in no
// keychain) with its full fingerprint, the keychain id and epoch; making it a home or joining
// a home by code, Sync now, leaving; pairing by code on the home (keychain-pairing.tsx); the
// members with their health (keychain-members.tsx); the parts and who changes them; site keys
// and how a new site joins (keychain-site-keys.tsx); the sealed file (keychain-sealed.tsx);
// handing the home to a member, and taking over as home on a member (keychain-handover.tsx).
// Home-only controls are not shown on a member, which says where they are; a control the
// signed-in role may not use is disabled with the role it needs.
import { useMe } from '../people/index.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { roleAtLeast } from '../../shared/api.js';
import { ErrorNote, Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { useKeychainAction } from './keychain-action.js';
import { adminWhy, Fingerprint, ownerWhy, SubmitRow, TextField, Why } from './keychain-bits.js';
import { CopyButton } from '../../shared/clipboard.js';
import { HandoverSection, OfferSection, TakeOverSection } from './keychain-handover.js';
import { MembersSection } from './keychain-members.js';
import { JoinByCodeSection, PairingSection } from './keychain-pairing.js';
import { PartsSection } from './keychain-parts.js';
import { keychainApi, type KeychainView } from './api.js';
import { handoverUnderWay, homeLabel, pairingUnderWay } from './keychain-words.js';
import { keychainKeys } from './queries.js';
import { SealedSection } from './keychain-sealed.js';
import { SiteKeysSection } from './keychain-site-keys.js';
import './keychain.css';

/** Health changes without a ledger event until a member turns silent: ask again now and then. */
const REFRESH_MS = 15_000;
/**
 * While a pairing is under way: the joining install learns from its home (asked every 3 s)
 * when both codes were typed, and a home learns a joiner's part of the code without a ledger
 * event, so both pages look again every 2 s. So does a home whose handover is open, and a
 * member offered the home.
 */
const PAIRING_MS = 2_000;

function RoleLine({ view }: { view: KeychainView }) {
  if (view.role === 'home')
    return (
      <p className="kc-role" aria-label="keychain role">
        <span className="badge ok">⌂ Home</span> This install is the home of its keychain: it keeps
        the roster and carries its parts to the members.
      </p>
    );
  if (view.role === 'member')
    return (
      <p className="kc-role" aria-label="keychain role">
        <span className="badge ok">◆ Member of {homeLabel(view)}</span> This install takes the
        roster and the carried parts from its home.
      </p>
    );
  return (
    <p className="kc-role" aria-label="keychain role">
      <span className="badge">○ Not in a keychain</span> This install keeps every part of its
      configuration to itself.
    </p>
  );
}

function Facts({ view }: { view: KeychainView }) {
  return (
    <dl className="facts" aria-label="this install in the keychain">
      {view.label !== null && (
        <>
          <dt>This install</dt>
          <dd>{view.label}</dd>
        </>
      )}
      <dt>Fingerprint</dt>
      <dd>
        <Fingerprint fp={view.fingerprint} />
      </dd>
      {view.keychain_id !== null && (
        <>
          <dt>Keychain id</dt>
          <dd>
            <code>{view.keychain_id}</code>
            <CopyButton text={view.keychain_id} what="the keychain id" />
          </dd>
        </>
      )}
      {view.epoch !== null && (
        <>
          <dt>Epoch</dt>
          <dd className="num">{view.epoch}</dd>
        </>
      )}
      {view.role === 'member' && view.home_fp !== null && (
        <>
          <dt>Home</dt>
          <dd>
            {homeLabel(view)} <Fingerprint fp={view.home_fp} />
          </dd>
        </>
      )}
      {view.since !== null && (
        <>
          <dt>{view.role === 'home' ? 'Home since' : 'Member since'}</dt>
          <dd>
            <Time iso={view.since} />
          </dd>
        </>
      )}
      {view.head !== null && (
        <>
          <dt>Log head</dt>
          <dd>
            <code className="kc-head">{view.head}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

function MakeHome({ why }: { why: string | null }) {
  const [label, setLabel] = useState('');
  const action = useKeychainAction();
  return (
    <section aria-labelledby="kc-start-heading">
      <h2 id="kc-start-heading">Start a keychain here</h2>
      <form
        className="settings-form"
        aria-label="Make this install the home"
        onSubmit={(e) => {
          e.preventDefault();
          action.run(() => keychainApi.makeHome(label.trim()));
        }}
      >
        <p className="hint">
          The home keeps the roster and carries its connections, mail settings, policy, branding and
          impact figures to every member. New sites join it with a site key made here. The licence
          must include the keychain.
        </p>
        <TextField
          label="Label for this install (how members will name it)"
          value={label}
          maxLength={64}
          disabled={why !== null}
          onChange={setLabel}
        />
        <SubmitRow why={why} blocked={action.busy || label.trim() === ''}>
          Make this install the home
        </SubmitRow>
        <Refusal error={action.error} />
      </form>
      <p className="hint">
        To join a keychain that exists already, pair with its home by code (Join a home by code), or
        make a site key on its home&apos;s Keychain page and start this install with{' '}
        <code>SVC_KEYCHAIN_JOIN</code> (the home&apos;s address) and{' '}
        <code>SVC_KEYCHAIN_SITE_KEY</code> (or <code>SVC_KEYCHAIN_SITE_KEY_FILE</code>).
      </p>
    </section>
  );
}

function LeaveControl({ view, why }: { view: KeychainView; why: string | null }) {
  const [asking, setAsking] = useState(false);
  const action = useKeychainAction();
  if (!asking)
    return (
      <button
        type="button"
        className="danger"
        disabled={why !== null}
        title={why ?? 'Leave this keychain'}
        onClick={() => {
          setAsking(true);
        }}
      >
        Leave the keychain…
      </button>
    );
  return (
    <div role="dialog" aria-label="Leave the keychain?" className="banner managed kc-confirm">
      <p>
        <strong>Leave the keychain of {homeLabel(view)}?</strong> This install stops taking the
        home&apos;s parts; what it was carried stays, as its own. The home is told when it can be
        reached. To come back, this install needs a new site key from the home.
      </p>
      <p className="confirm">
        <button
          type="button"
          className="danger"
          disabled={action.busy}
          onClick={() => {
            action.run(keychainApi.leave, () => {
              setAsking(false);
            });
          }}
        >
          Leave the keychain
        </button>
        <button
          type="button"
          className="quiet"
          onClick={() => {
            setAsking(false);
            action.reset();
          }}
        >
          Cancel
        </button>
      </p>
      <Refusal error={action.error} />
    </div>
  );
}

function SyncControls({ view, why }: { view: KeychainView; why: string | null }) {
  const [done, setDone] = useState<string | null>(null);
  const action = useKeychainAction();
  const isHome = view.role === 'home';
  return (
    <section aria-labelledby="kc-sync-heading">
      <h2 id="kc-sync-heading">Sync</h2>
      <p className="hint">
        {isHome
          ? 'Members call the home every 30 seconds. Sync now checks every member’s health at once.'
          : `This install pulls from its home, ${homeLabel(view)}, every 30 seconds. Sync now pulls at once.`}
      </p>
      <p className="actions kc-actions">
        <button
          type="button"
          disabled={why !== null || action.busy}
          title={why ?? undefined}
          onClick={() => {
            setDone(null);
            action.run(keychainApi.pull, () => {
              setDone(isHome ? 'Members checked.' : `Synced with ${homeLabel(view)}.`);
            });
          }}
        >
          {action.busy ? 'Syncing…' : 'Sync now'}
        </button>
        {view.role === 'member' && <LeaveControl view={view} why={why} />}
      </p>
      <Why why={why} />
      {done !== null && (
        <p className="ok" role="status">
          ✓ {done}
        </p>
      )}
      <Refusal error={action.error} />
      {isHome && (
        <p className="hint">
          The home cannot leave its keychain; members leave from their own Keychain page.
        </p>
      )}
    </section>
  );
}

export function KeychainPage() {
  const me = useMe();
  const role = me.data?.role;
  const admin = roleAtLeast(role, 'admin');
  const kc = useQuery({
    queryKey: keychainKeys.all,
    queryFn: keychainApi.view,
    refetchInterval: (q) =>
      pairingUnderWay(q.state.data) || handoverUnderWay(q.state.data) ? PAIRING_MS : REFRESH_MS,
    placeholderData: keepPreviousData,
  });
  const v = kc.data;
  return (
    <main className="page keychain-page">
      <h1>Keychain</h1>
      <p className="hint">
        Installs in one keychain share configuration: one is the home, the others are members that
        take the home&apos;s parts and report to it.
      </p>
      <ErrorNote error={kc.error} />
      {v === undefined ? (
        kc.isPending && <p className="muted">Loading the keychain…</p>
      ) : (
        <>
          <RoleLine view={v} />
          <Facts view={v} />
          {v.role === 'none' ? (
            <div className="kc-start">
              {v.joining?.state !== 'open' && (
                <MakeHome why={adminWhy(admin, role, 'Making this install the home')} />
              )}
              <JoinByCodeSection view={v} why={adminWhy(admin, role, 'Pairing with a home')} />
            </div>
          ) : (
            <SyncControls view={v} why={adminWhy(admin, role, 'Syncing and leaving')} />
          )}
          {v.role === 'home' && (
            <PairingSection view={v} why={adminWhy(admin, role, 'Pairing installs')} />
          )}
          {v.role === 'home' && (
            <HandoverSection view={v} why={adminWhy(admin, role, 'Withdrawing the handover')} />
          )}
          {v.role === 'member' && (
            <>
              <OfferSection view={v} why={adminWhy(admin, role, 'Accepting the home')} />
              <TakeOverSection
                view={v}
                why={ownerWhy(roleAtLeast(role, 'owner'), role, 'Taking over as home')}
              />
            </>
          )}
          {v.role !== 'none' && <MembersSection view={v} admin={admin} role={role} />}
          <PartsSection view={v} why={adminWhy(admin, role, 'Choosing what is carried')} />
          <SiteKeysSection view={v} admin={admin} role={role} />
          <SealedSection view={v} why={adminWhy(admin, role, 'Sealing and opening files')} />
        </>
      )}
    </main>
  );
}
