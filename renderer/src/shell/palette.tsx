// The command palette (console.md C.1, D.2): Ctrl+K or ⌘K anywhere opens a dialog that
// searches the pages, the actions ("Halt all actions" opens the halt form here: it never
// halts by itself; "Keyboard shortcuts" opens their list) and episodes by id or text
// (GET /v1/episodes?q=, debounced). The first match is preselected; arrows move, Enter runs,
// Escape closes and gives the focus back.
import { episodeKeys } from '../features/episodes/index.js';
import { useMe } from '../features/people/index.js';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { episodesApi } from '../features/episodes/index.js';
import { roleAtLeast } from '../shared/api.js';
import { HaltForm } from '../features/autonomy/index.js';
import { navigate } from '../shared/router.js';
import { showShortcuts } from './shortcuts.js';
import './palette.css';

/** Where the palette can go: every page of the navigation, and a few sections by name. */
const DESTINATIONS: readonly { title: string; path: string }[] = [
  { title: 'Live', path: '/live' },
  { title: 'Episodes', path: '/episodes' },
  { title: 'Incidents', path: '/incidents' },
  { title: 'Approvals', path: '/approvals' },
  { title: 'Autonomy', path: '/autonomy' },
  { title: 'Estate', path: '/estate' },
  { title: 'Learning', path: '/learning' },
  { title: 'Digest', path: '/digest' },
  { title: 'Lookback', path: '/lookback' },
  { title: 'Study', path: '/study' },
  { title: 'Audit log', path: '/audit' },
  { title: 'Connections', path: '/connections' },
  { title: 'Policy', path: '/policy' },
  { title: 'People', path: '/people' },
  { title: 'Status and doctor', path: '/status' },
  { title: 'Licence', path: '/licence' },
  { title: 'Keychain', path: '/keychain' },
  { title: 'Settings', path: '/settings' },
  { title: 'Impact figures (settings)', path: '/settings#impact' },
  { title: 'Me', path: '/me' },
  { title: 'Wall display', path: '/wall' },
];

interface Item {
  key: string;
  kind: 'page' | 'action' | 'episode';
  label: string;
  detail?: string;
  /** why it cannot run, shown beside it (never hidden) */
  disabled?: string;
  run: () => void;
}

const DEBOUNCE_MS = 250;

/** Episodes whose id or text holds `text`: one server search once typing pauses. */
function useEpisodeSearch(text: string) {
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const t = setTimeout(() => {
      setDebounced(text.trim());
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(t);
    };
  }, [text]);
  const query = new URLSearchParams({ q: debounced, limit: '5', sort: '-t_open' }).toString();
  const found = useQuery({
    queryKey: episodeKeys.list(query),
    queryFn: () => episodesApi.episodes(query),
    enabled: debounced.length >= 3,
  });
  return debounced.length >= 3 ? (found.data?.episodes ?? []) : [];
}

function Palette({ onClose }: { onClose: () => void }) {
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const [halting, setHalting] = useState(false);
  const me = useMe();
  const episodes = useEpisodeSearch(text);
  const id = useId();
  const go = (path: string) => () => {
    onClose();
    navigate(path);
  };
  const word = text.trim().toLowerCase();
  const matches = (s: string) => s.toLowerCase().includes(word);
  const responder = roleAtLeast(me.data?.role, 'responder');
  const items: Item[] = [
    ...DESTINATIONS.filter((d) => matches(d.title) || matches(d.path)).map((d): Item => ({
      key: d.path,
      kind: 'page',
      label: d.title,
      run: go(d.path),
    })),
    ...(matches('Halt all actions') || matches('stop')
      ? [
          {
            key: 'halt',
            kind: 'action',
            label: 'Halt all actions',
            detail: 'opens the halt form; asks for a reason',
            ...(!responder && { disabled: 'needs the responder role' }),
            run: () => {
              setHalting(true);
            },
          } satisfies Item,
        ]
      : []),
    ...(matches('Keyboard shortcuts') || matches('keys') || word === '?'
      ? [
          {
            key: 'shortcuts',
            kind: 'action',
            label: 'Keyboard shortcuts',
            detail: 'the list (also ?)',
            run: () => {
              onClose();
              showShortcuts();
            },
          } satisfies Item,
        ]
      : []),
    ...episodes.map((e): Item => ({
      key: e.episode_id,
      kind: 'episode',
      label: e.episode_id,
      detail: `${e.service} · ${e.alerts.join(', ')} · ${e.result}`,
      run: go(`/episodes/${e.episode_id}`),
    })),
  ];
  const current = Math.min(active, Math.max(items.length - 1, 0));
  const optionId = (i: number) => `${id}-${String(i)}`;
  const runAt = (i: number) => {
    const item = items[i];
    if (item !== undefined && item.disabled === undefined) item.run();
  };

  if (halting)
    return (
      <div role="dialog" aria-modal="true" aria-label="Command palette" className="palette">
        <h2 className="palette-title">Halt all actions</h2>
        <HaltForm onDone={onClose} onCancel={onClose} />
      </div>
    );
  return (
    <div role="dialog" aria-modal="true" aria-label="Command palette" className="palette">
      <input
        // The palette exists to be typed into at once.
        autoFocus
        role="combobox"
        aria-label="Search pages, episodes and actions"
        aria-expanded={items.length > 0}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={items.length > 0 ? optionId(current) : undefined}
        placeholder="Go to a page, an episode id, or an action (halt)…"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            if (items.length === 0) return;
            const step = e.key === 'ArrowDown' ? 1 : -1;
            setActive((current + step + items.length) % items.length);
          } else if (e.key === 'Enter') {
            e.preventDefault();
            runAt(current);
          }
        }}
      />
      <ul id={`${id}-list`} role="listbox" aria-label="results" className="palette-list">
        {items.map((item, i) => (
          <li
            key={item.key}
            id={optionId(i)}
            role="option"
            aria-selected={i === current}
            aria-disabled={item.disabled !== undefined || undefined}
            onMouseDown={(e) => {
              e.preventDefault();
            }}
            onClick={() => {
              runAt(i);
            }}
          >
            <span className="kind">{item.kind}</span> <span className="label">{item.label}</span>
            {item.detail !== undefined && <span className="detail"> {item.detail}</span>}
            {item.disabled !== undefined && <span className="detail"> ({item.disabled})</span>}
          </li>
        ))}
        {items.length === 0 && <li className="detail">Nothing matches “{text}”.</li>}
      </ul>
    </div>
  );
}

/** Mounted once in the frame: listens for Ctrl+K / ⌘K, and shows the palette over the page. */
export function CommandPalette() {
  const [open, setOpen] = useState(false);
  const before = useRef<Element | null>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        if (!open) before.current = document.activeElement;
        setOpen(true);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  if (!open) return null;
  const close = () => {
    setOpen(false);
    if (before.current instanceof HTMLElement) before.current.focus();
  };
  return (
    <div
      className="palette-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) close();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          close();
        }
      }}
    >
      <Palette onClose={close} />
    </div>
  );
}
