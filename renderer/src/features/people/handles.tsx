// A person's channel handles: the fields (People's editor and Me), the draft taken from the
// saved handles, and the change sent back (emptied ones removed, unchanged ones left out).
import { HANDLE_KINDS, type HandleKind, type Handles, type HandlesInput } from './api.js';

const HANDLE_TITLES: Record<HandleKind, string> = {
  slack: 'Slack',
  mattermost: 'Mattermost',
  teams: 'Teams',
  phone: 'Phone',
};

/** Handles as a change: emptied ones are removed (null), unchanged ones left out. */
export function handlesChange(before: Handles, after: Record<HandleKind, string>): HandlesInput {
  const change: HandlesInput = {};
  for (const k of HANDLE_KINDS) {
    const v = after[k].trim();
    if (v === (before[k] ?? '')) continue;
    change[k] = v === '' ? null : v;
  }
  return change;
}

export const handlesDraft = (h: Handles | undefined): Record<HandleKind, string> => ({
  slack: h?.slack ?? '',
  mattermost: h?.mattermost ?? '',
  teams: h?.teams ?? '',
  phone: h?.phone ?? '',
});

export function HandleFields({
  idPrefix,
  value,
  disabled,
  onChange,
}: {
  idPrefix: string;
  value: Record<HandleKind, string>;
  disabled: boolean;
  onChange: (v: Record<HandleKind, string>) => void;
}) {
  return (
    <fieldset>
      <legend>Handles</legend>
      <div className="filters">
        {HANDLE_KINDS.map((k) => (
          <label key={k}>
            {HANDLE_TITLES[k]}
            <input
              id={`${idPrefix}-handles-${k}`}
              value={value[k]}
              maxLength={200}
              disabled={disabled}
              onChange={(e) => {
                onChange({ ...value, [k]: e.target.value });
              }}
            />
          </label>
        ))}
      </div>
    </fieldset>
  );
}
