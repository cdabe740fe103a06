// The members of the keychain as this install knows them: label, role, health (as the home
// hears them), fingerprint, how each came in and when. On the home, each row can be renamed,
// and a member removed after a confirmation naming it and its full fingerprint; a member
// without a licence seat (paired by code, or a site key made without one) is marked
// unlicensed, with Approve seat; the home is handed over to a member from its row, after a
// confirmation (keychain-handover.tsx). A member shows the roster only and says where it is
// changed.
import { useState } from 'react';
import { Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { useKeychainAction } from './keychain-action.js';
import { adminWhy, Fingerprint, HealthBadge, Why } from './keychain-bits.js';
import { CopyButton } from '../../shared/clipboard.js';
import { HandOverConfirm } from './keychain-handover.js';
import { keychainApi, type KeychainMember, type KeychainView } from './api.js';
import { homeLabel, quietText, seatRequest, viaText } from './keychain-words.js';

function RenameForm({ member, onDone }: { member: KeychainMember; onDone: () => void }) {
  const [label, setLabel] = useState(member.label);
  const action = useKeychainAction();
  return (
    <form
      className="inline-edit"
      aria-label={`Rename ${member.label}`}
      onSubmit={(e) => {
        e.preventDefault();
        action.run(
          // The home renames itself without a fingerprint.
          () =>
            keychainApi.rename(
              label.trim(),
              member.role === 'home' ? undefined : member.fingerprint,
            ),
          onDone,
        );
      }}
    >
      <label>
        New label
        <input
          value={label}
          maxLength={64}
          required
          onChange={(e) => {
            setLabel(e.target.value);
          }}
        />
      </label>
      <span className="confirm">
        <button type="submit" disabled={action.busy || label.trim() === ''}>
          Save label
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          Cancel
        </button>
      </span>
      <Refusal error={action.error} />
    </form>
  );
}

function RemoveConfirm({ member, onDone }: { member: KeychainMember; onDone: () => void }) {
  const action = useKeychainAction();
  return (
    <div
      role="dialog"
      aria-label={`Remove ${member.label} from the keychain?`}
      className="banner managed kc-confirm"
    >
      <p>
        <strong>Remove {member.label} from the keychain?</strong> Its fingerprint is:
      </p>
      <p>
        <Fingerprint fp={member.fingerprint} copy={false} />
      </p>
      <p>
        From its next call it is refused and leaves the keychain by itself; what it was carried
        stays, as its own. To bring it back, give it a new site key.
      </p>
      <p className="confirm">
        <button
          type="button"
          className="danger"
          disabled={action.busy}
          onClick={() => {
            action.run(() => keychainApi.removeMember(member.fingerprint), onDone);
          }}
        >
          Remove {member.label}
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          Cancel
        </button>
      </p>
      <Refusal error={action.error} />
    </div>
  );
}

function ApproveSeat({
  m,
  request,
  why,
}: {
  m: KeychainMember;
  request: string;
  why: string | null;
}) {
  const action = useKeychainAction();
  return (
    <>
      <button
        type="button"
        className="primary"
        disabled={why !== null || action.busy}
        title={why ?? `Give ${m.label} a seat on the licence`}
        onClick={() => {
          action.run(() => keychainApi.approveSeat(request));
        }}
      >
        Approve seat
      </button>
      <Refusal error={action.error} />
    </>
  );
}

function MemberRow({
  view,
  m,
  isHome,
  editWhy,
  seatWhy,
  handWhy,
}: {
  view: KeychainView;
  m: KeychainMember;
  isHome: boolean;
  editWhy: string | null;
  seatWhy: string | null;
  handWhy: string | null;
}) {
  const [open, setOpen] = useState<'rename' | 'remove' | 'handover' | null>(null);
  const close = () => {
    setOpen(null);
  };
  const request = m.licensed ? null : seatRequest(m.via);
  return (
    <>
      <tr>
        <td data-label="Label">
          <strong>{m.label}</strong>
          {m.this && <span className="muted"> (this install)</span>}
          {!m.licensed && (
            <>
              {' '}
              <span className="badge warn" title="holds no licence seat until a seat is approved">
                ◇ unlicensed
              </span>
            </>
          )}
        </td>
        <td data-label="Role">{m.role === 'home' ? '⌂ home' : 'member'}</td>
        <td data-label="Health">
          {m.this ? (
            <span className="muted">this install</span>
          ) : (
            <>
              <HealthBadge health={m.health} quiet={quietText(m.quiet_s)} />{' '}
              <span className="muted">{quietText(m.quiet_s)}</span>
            </>
          )}
        </td>
        <td data-label="Fingerprint">
          <code title={m.fingerprint}>{m.fp_short}…</code>
          <CopyButton text={m.fingerprint} what={`the full fingerprint of ${m.label}`} />
        </td>
        <td data-label="Via">
          {viaText(m.via)}
          {m.address !== null && <span className="muted"> · {m.address}</span>}
        </td>
        <td data-label="Added">
          <Time iso={m.added_at} />
        </td>
        {isHome && (
          <td data-label="Change" className="row-actions">
            {request !== null && (
              <>
                <ApproveSeat m={m} request={request} why={seatWhy} />{' '}
              </>
            )}
            <button
              type="button"
              disabled={editWhy !== null}
              title={editWhy ?? `Give ${m.label} another label`}
              onClick={() => {
                setOpen('rename');
              }}
            >
              Rename…
            </button>{' '}
            {m.role !== 'home' && (
              <button
                type="button"
                className="danger"
                disabled={editWhy !== null}
                title={editWhy ?? `Remove ${m.label} from the keychain`}
                onClick={() => {
                  setOpen('remove');
                }}
              >
                Remove…
              </button>
            )}
            {m.role !== 'home' && (
              <>
                {' '}
                <button
                  type="button"
                  disabled={handWhy !== null}
                  title={handWhy ?? `Make ${m.label} the home; this install becomes its member`}
                  onClick={() => {
                    setOpen('handover');
                  }}
                >
                  Hand the home over…
                </button>
              </>
            )}
          </td>
        )}
      </tr>
      {open !== null && (
        <tr className="kc-open">
          <td colSpan={7}>
            {open === 'rename' ? (
              <RenameForm member={m} onDone={close} />
            ) : open === 'remove' ? (
              <RemoveConfirm member={m} onDone={close} />
            ) : (
              <HandOverConfirm view={view} member={m} onDone={close} />
            )}
          </td>
        </tr>
      )}
    </>
  );
}

export function MembersSection({
  view,
  admin,
  role,
}: {
  view: KeychainView;
  admin: boolean;
  role: string | undefined;
}) {
  const isHome = view.role === 'home';
  const editWhy = adminWhy(admin, role, 'Renaming and removing members');
  const seatWhy = adminWhy(admin, role, 'Approving a licence seat');
  const handWhy = adminWhy(admin, role, 'Handing the home over');
  const unlicensed = view.members.some((m) => !m.licensed);
  return (
    <section aria-labelledby="kc-members-heading">
      <h2 id="kc-members-heading">
        Members <span className="count">{view.members.length}</span>
      </h2>
      {isHome ? (
        <p className="hint">
          Health is how this home hears each member: silent after 3 minutes without a call, gone
          after a day. Nothing is removed by itself.
          {unlicensed &&
            ' A member marked unlicensed holds no licence seat until Approve seat gives it one.'}
        </p>
      ) : (
        <p className="hint">
          The roster as the home, {homeLabel(view)}, sent it at the last sync. Members are renamed
          and removed on the home.
        </p>
      )}
      <table className="table kc-table" aria-label="members">
        <thead>
          <tr>
            <th>Label</th>
            <th>Role</th>
            <th>Health</th>
            <th>Fingerprint</th>
            <th>Via</th>
            <th>Added</th>
            {isHome && <th>Change</th>}
          </tr>
        </thead>
        <tbody>
          {view.members.map((m) => (
            <MemberRow
              key={m.fingerprint}
              view={view}
              m={m}
              isHome={isHome}
              editWhy={editWhy}
              seatWhy={seatWhy}
              handWhy={handWhy}
            />
          ))}
        </tbody>
      </table>
      {isHome && <Why why={editWhy} />}
      {isHome && view.members.length > 1 && <Why why={handWhy} />}
    </section>
  );
}
