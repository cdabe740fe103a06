// The Keychain page's parts: what the home carries and who changes each part. On the home an
// admin stops carrying a part or carries it again (POST /v1/keychain/scope); on a member an
// admin keeps its own copy of a carried part or takes the home's again (POST
// /v1/keychain/own). Parts this version does not carry are shown without a control.
import { Refusal } from '../../shared/http.js';
import { useKeychainAction } from './keychain-action.js';
import { Why } from './keychain-bits.js';
import { keychainApi, type KeychainView } from './api.js';
import { homeLabel, PART_WORDS } from './keychain-words.js';

type PartControl = { label: string; run: () => Promise<KeychainView> } | null;

function partState(view: KeychainView, part: string): { glyph: string; words: string } {
  const carried = view.carried.includes(part);
  // No document of the licence travels: the home vouches for each member it seated.
  const licence = part === 'licence';
  if (view.role === 'home') {
    if (carried && licence)
      return { glyph: '●', words: 'each seated member runs under this licence' };
    if (carried) return { glyph: '●', words: 'carried from here to every member' };
    if ((view.skip ?? []).includes(part))
      return { glyph: '○', words: 'not carried: each member keeps its own' };
    return { glyph: '–', words: 'each install keeps its own' };
  }
  if ((view.owned ?? []).includes(part))
    return { glyph: '◐', words: 'this member keeps its own copy' };
  if (carried && licence)
    return {
      glyph: '●',
      words: `the home ${homeLabel(view)} vouches for this install once it seats it`,
    };
  if (carried) return { glyph: '●', words: `changed on the home ${homeLabel(view)}` };
  return { glyph: '–', words: 'this install’s own' };
}

/** What an admin may do with a part here, or null when nothing. */
function partControl(view: KeychainView, part: string): PartControl {
  const words = PART_WORDS[part] ?? part;
  const skip = view.skip ?? [];
  const owned = view.owned ?? [];
  if (view.role === 'home') {
    if (view.carried.includes(part))
      return {
        label: `Stop carrying ${words}`,
        run: () => keychainApi.scope([...skip, part]),
      };
    if (skip.includes(part))
      return {
        label: `Carry ${words} again`,
        run: () => keychainApi.scope(skip.filter((p) => p !== part)),
      };
    return null;
  }
  if (view.role !== 'member') return null;
  if (owned.includes(part))
    return { label: `Take the home’s ${words}`, run: () => keychainApi.own(part, false) };
  if (view.carried.includes(part))
    return { label: `Keep own ${words}`, run: () => keychainApi.own(part, true) };
  return null;
}

/** The carried parts first, each group in the server's order. */
const carriedFirst = (view: KeychainView): string[] => [
  ...view.parts.filter((p) => view.carried.includes(p)),
  ...view.parts.filter((p) => !view.carried.includes(p)),
];

export function PartsSection({ view, why }: { view: KeychainView; why: string | null }) {
  const action = useKeychainAction();
  return (
    <section aria-labelledby="kc-parts-heading">
      <h2 id="kc-parts-heading">
        Parts carried <span className="count">{view.carried.length}</span>
      </h2>
      {view.role === 'none' ? (
        <p className="muted">
          In no keychain, every part of the configuration is this install’s own.
        </p>
      ) : (
        <>
          {view.role === 'member' && view.carried.length > 0 && (
            <p className="hint">
              A part the home carries is changed on the home, {homeLabel(view)}: here, the pages
              that change it refuse and name the home. Keep a part&apos;s own copy to change it
              here; taking the home&apos;s again replaces it at the next sync.
            </p>
          )}
          {view.role === 'home' && (
            <p className="hint">
              Members take a carried part at their next sync. A part no longer carried stays on each
              member as it is, and becomes theirs to change.
            </p>
          )}
          <ul className="kc-parts" aria-label="parts">
            {carriedFirst(view).map((p) => {
              const s = partState(view, p);
              const control = partControl(view, p);
              return (
                <li key={p} className={view.carried.includes(p) ? 'carried' : undefined}>
                  <strong>{PART_WORDS[p] ?? p}</strong>{' '}
                  <span className={view.carried.includes(p) ? 'ok' : 'muted'}>
                    {s.glyph} {s.words}
                  </span>
                  {control !== null && (
                    <button
                      type="button"
                      className="quiet"
                      disabled={why !== null || action.busy}
                      title={why ?? undefined}
                      onClick={() => {
                        action.run(control.run);
                      }}
                    >
                      {control.label}
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
          <Why why={why} />
          <Refusal error={action.error} />
        </>
      )}
    </section>
  );
}
