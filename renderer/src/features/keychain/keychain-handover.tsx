// Moving the home (docs/keychain.md). On the home: offering it to a member (after a
// confirmation naming the member and its full fingerprint; keychain-members.tsx opens it from
// the member's row), then the six digits this home shows (large, 3 + 3) to type on that
// member, the offer's end and Withdraw; an ended offer in plain words. On the member offered
// to: the offer, learnt at its next pull (Sync now), with a field for the home's code and
// Accept. On any member: taking over as home when the home is lost (owner only, after a
// confirmation; force is offered only once no other member could confirm the home is lost).
// A refusal is the server's message, and stays after the offer it ended is gone.
import { useState } from 'react';
import { ApiError } from '../../shared/api.js';
import { Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { useKeychainAction } from './keychain-action.js';
import { Fingerprint, Why } from './keychain-bits.js';
import { CodeDigits, CodeForm, StateBadge, type StateWords } from './keychain-pairing.js';
import { keychainApi, type HandoverView, type KeychainMember, type KeychainView } from './api.js';
import { homeLabel } from './keychain-words.js';

/** The epoch the home moves to: one above this install's. */
const nextEpoch = (view: KeychainView): number => (view.epoch ?? 0) + 1;

/** The label of the member an offer is made to, from the roster. */
function toLabel(view: KeychainView, h: HandoverView): string {
  return view.members.find((m) => m.fingerprint === h.to)?.label ?? `${h.to.slice(0, 12)}…`;
}

/** On the home: the confirmation before offering the home to `member`. */
export function HandOverConfirm({
  view,
  member,
  onDone,
}: {
  view: KeychainView;
  member: KeychainMember;
  onDone: () => void;
}) {
  const action = useKeychainAction();
  const open = view.handover?.state === 'open' ? view.handover : null;
  return (
    <div
      role="dialog"
      aria-label={`Hand the home over to ${member.label}?`}
      className="banner managed kc-confirm"
    >
      <p>
        <strong>Hand the home over to {member.label}?</strong> Its fingerprint is:
      </p>
      <p>
        <Fingerprint fp={member.fingerprint} copy={false} />
      </p>
      <p>
        This home then shows a six-digit code for 10 minutes; an admin types it on {member.label}
        &apos;s Keychain page, which shows the offer at its next sync. When the code is typed there,{' '}
        {member.label} becomes the home at epoch {nextEpoch(view)} and this install becomes a member
        of it: the roster and the carried parts are changed on {member.label} from then on. Until
        then, Withdraw here ends the offer.
      </p>
      {open !== null && open.to !== member.fingerprint && (
        <p className="hint">The offer open to {toLabel(view, open)} is withdrawn by this one.</p>
      )}
      <p className="confirm">
        <button
          type="button"
          className="danger"
          disabled={action.busy}
          onClick={() => {
            action.run(() => keychainApi.offerHandover(member.fingerprint), onDone);
          }}
        >
          Offer the home to {member.label}
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          Cancel
        </button>
      </p>
      <Refusal error={action.error} />
    </div>
  );
}

/** An offer that ended, as the home tells it. */
function endedWords(h: HandoverView, label: string): StateWords {
  // Open, but the server shows the code to admins only.
  if (h.state === 'open')
    return {
      glyph: '…',
      word: 'offered',
      tone: '',
      meaning: `The home is offered to ${label}; its code is shown to admins only.`,
    };
  if (h.state === 'accepted')
    return {
      glyph: '✓',
      word: 'accepted',
      tone: 'ok',
      meaning: `${label} typed the code and is the home now; this install is a member of it.`,
    };
  if (h.state === 'expired')
    return {
      glyph: '⌛',
      word: 'expired',
      tone: 'warn',
      meaning: `The 10 minutes ran out before the code was typed on ${label}; this install is still the home.`,
    };
  if (h.reason === 'wrong code')
    return {
      glyph: '✗',
      word: 'void',
      tone: 'fail',
      meaning: `A wrong code was typed on ${label}, which voided the offer; this install is still the home.`,
    };
  if (h.reason === 'replaced')
    return {
      glyph: '–',
      word: 'replaced',
      tone: '',
      meaning: `A newer offer replaced the one to ${label}.`,
    };
  return {
    glyph: '–',
    word: 'withdrawn',
    tone: '',
    meaning: `The offer to ${label} was withdrawn here before it was accepted; this install is still the home.`,
  };
}

/** On the home: the offer under way (its code and Withdraw), or how the last one ended. */
export function HandoverSection({ view, why }: { view: KeychainView; why: string | null }) {
  const action = useKeychainAction();
  const h = view.handover;
  if (h === null) return null;
  const label = toLabel(view, h);
  const open = h.state === 'open' && h.code !== null ? h.code : null;
  const ended = open === null ? endedWords(h, label) : null;
  return (
    <section aria-labelledby="kc-handover-heading">
      <h2 id="kc-handover-heading">Handover</h2>
      {open !== null ? (
        <div className="kc-pair" role="group" aria-label={`home offered to ${label}`}>
          <h3>The home is offered to {label}</h3>
          <p className="muted">
            fingerprint <code title={h.to}>{h.to.slice(0, 12)}…</code> · the offer ends{' '}
            <Time iso={h.expires_at} />
          </p>
          <p className="kc-code-say">This home shows:</p>
          <CodeDigits code={open} label={`handover code for ${label}`} />
          <p className="kc-code-say">
            — type it on {label} (its Keychain page, under Handover; Sync now there shows the offer
            at once). Then {label} is the home at epoch {nextEpoch(view)} and this install a member
            of it. A wrong code typed there voids the offer.
          </p>
          <p className="actions">
            <button
              type="button"
              disabled={why !== null || action.busy}
              title={why ?? `Withdraw the offer to ${label}`}
              onClick={() => {
                action.run(keychainApi.cancelHandover);
              }}
            >
              Withdraw
            </button>
          </p>
          <Why why={why} />
        </div>
      ) : (
        ended !== null && (
          <p role="status" aria-label="the last handover">
            <StateBadge s={ended} /> {ended.meaning}
            {h.state !== 'accepted' &&
              ' To offer again, use Hand the home over… in the members list.'}
          </p>
        )
      )}
      <Refusal error={action.error} />
    </section>
  );
}

/** On a member: the offer of the home to this install, with the field for the home's code. */
export function OfferSection({ view, why }: { view: KeychainView; why: string | null }) {
  // Kept out of the offer: a wrong code voids it, and the refusal stays once it is gone.
  const action = useKeychainAction();
  const h = view.handover;
  const home = homeLabel(view);
  return (
    <section aria-labelledby="kc-offer-heading">
      <h2 id="kc-offer-heading">Handover</h2>
      {h?.state === 'offered' ? (
        <div className="kc-pair" role="group" aria-label="handover offered to this install">
          <h3>The home offers to hand itself to this install</h3>
          <p>
            {home} offers to make this install the home. Type the six digits {home} shows (its
            Keychain page, under Handover). This install then becomes the home at epoch{' '}
            {nextEpoch(view)}, and {home} a member of it. The offer ends <Time iso={h.expires_at} />
            .
          </p>
          <CodeForm
            name="Accept the home"
            field={`Code shown on ${home}`}
            submit="Accept the home"
            why={why}
            busy={action.busy}
            onCode={(digits) => {
              action.run(() => keychainApi.acceptHandover(digits));
            }}
          />
          <p className="hint">A wrong code voids the offer: {home} must then offer again.</p>
        </div>
      ) : h?.state === 'expired' ? (
        <p role="status" aria-label="the last handover">
          <StateBadge s={{ glyph: '⌛', word: 'expired', tone: 'warn', meaning: '' }} /> The offer
          from {home} ran out before its code was typed here; {home} must offer again.
        </p>
      ) : (
        <p className="hint">
          The home hands itself to a member from its own Keychain page. An offer to this install
          shows here at the next sync: every 30 seconds, or at once with Sync now.
        </p>
      )}
      <Refusal error={action.error} />
    </section>
  );
}

/** The confirmation before taking over; force is offered once no member could confirm. */
function TakeOverConfirm({ view, onDone }: { view: KeychainView; onDone: () => void }) {
  const action = useKeychainAction();
  const [canForce, setCanForce] = useState(false);
  const [force, setForce] = useState(false);
  const home = homeLabel(view);
  return (
    <div role="dialog" aria-label="Take over as home?" className="banner managed kc-confirm">
      <p>
        <strong>Take over as home from {home}?</strong> This install becomes the home at epoch{' '}
        {nextEpoch(view)} and the other members follow it. If {home} comes back, it is shown the
        take-over and steps down to a member. While {home} runs, hand the home over from it instead.
      </p>
      {canForce && (
        <p>
          <label>
            <input
              type="checkbox"
              checked={force}
              onChange={(e) => {
                setForce(e.target.checked);
              }}
            />{' '}
            Take over even though no other member could confirm that {home} is lost
          </label>
        </p>
      )}
      <p className="confirm">
        <button
          type="button"
          className="danger"
          disabled={action.busy}
          onClick={() => {
            action.run(async () => {
              try {
                return await keychainApi.takeOver(canForce && force);
              } catch (err) {
                if (isUnconfirmed(err)) setCanForce(true);
                throw err;
              }
            }, onDone);
          }}
        >
          {action.busy ? 'Taking over…' : 'Take over as home'}
        </button>
        <button type="button" className="quiet" onClick={onDone}>
          Cancel
        </button>
      </p>
      {isUnconfirmed(action.error) ? (
        <p className="error" role="alert">
          ⚠ No other member answered to confirm that {home} is lost, so nothing changed. If you know{' '}
          {home} is gone for good, tick the box above and take over again.
        </p>
      ) : (
        <Refusal error={action.error} />
      )}
    </div>
  );
}

/** The server's words name an API field; the page names its own box instead. */
const isUnconfirmed = (error: unknown): boolean =>
  error instanceof ApiError && error.code === 'takeover_unconfirmed';

/** On a member: taking over as home when the home is lost (owner only). */
export function TakeOverSection({ view, why }: { view: KeychainView; why: string | null }) {
  const [asking, setAsking] = useState(false);
  const home = homeLabel(view);
  return (
    <section aria-labelledby="kc-takeover-heading">
      <h2 id="kc-takeover-heading">Take over as home</h2>
      <p className="hint">
        When {home} is lost for good, the owner makes this install the home. It is allowed only once{' '}
        {home} has failed to answer this install for 15 minutes, as this install saw it (time this
        install was down does not count). The other members are asked: one that heard {home} in the
        last 3 minutes refuses, and nothing changes.
      </p>
      {asking ? (
        <TakeOverConfirm
          view={view}
          onDone={() => {
            setAsking(false);
          }}
        />
      ) : (
        <p className="actions">
          <button
            type="button"
            className="danger"
            disabled={why !== null}
            title={why ?? `Make this install the home in place of ${home}`}
            onClick={() => {
              setAsking(true);
            }}
          >
            Take over as home…
          </button>
        </p>
      )}
      <Why why={why} />
    </section>
  );
}
