// The Episodes query bar (console.md C.3): `/` focuses it (not while typing elsewhere); an
// ARIA combobox that completes field names and values from the facet counts already loaded,
// first suggestion preselected, at most 10, keyboard navigable; a bad query is explained at
// the caret while the page keeps the last valid result.
import { episodeKeys } from './queries.js';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { ApiError } from '../../shared/api.js';
import { episodesApi } from './api.js';
import { navigate } from '../../shared/router.js';
import { isShortcutKey } from '../../shared/keys.js';
import { suggest, type SearchField, type Suggestion } from './episodes-suggest.js';
import './episodes-query.css';

/** GET /v1/search/fields once per session: the field table does not change while running. */
function useFields(): SearchField[] {
  const fields = useQuery({
    queryKey: episodeKeys.searchFields,
    queryFn: episodesApi.searchFields,
    staleTime: Infinity,
  });
  return fields.data?.episodes.fields ?? [];
}

export function QueryBar({
  params,
  error,
  facets,
  withParam,
}: {
  params: URLSearchParams;
  error: unknown;
  facets: Record<string, Record<string, number>>;
  withParam: (params: URLSearchParams, key: string, value: string | null) => string;
}) {
  const [text, setText] = useState(params.get('query') ?? '');
  const [options, setOptions] = useState<Suggestion[]>([]);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const fields = useFields();
  const id = useId();
  // Follow the URL's query (back, forward, a link), not every render: `params` is a new
  // object each time, and a live refresh must never wipe what is being typed.
  const fromUrl = params.get('query') ?? '';
  useEffect(() => {
    setText(fromUrl);
  }, [fromUrl]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || !isShortcutKey(e)) return;
      e.preventDefault();
      input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, []);
  const bad = error instanceof ApiError && error.code === 'bad_query' ? error : null;
  const open = options.length > 0;
  const listId = `${id}-suggestions`;
  const optionId = (i: number) => `${id}-option-${String(i)}`;

  const refresh = (value: string, caret: number) => {
    setOptions(suggest(value, caret, fields, facets));
    setActive(0);
  };
  // Where the caret goes once React has written an accepted suggestion: set in the same
  // commit, before the next key press can land (a frame later, a fast typist's next letters
  // would go in before the caret moved back over them).
  const caretAfter = useRef<number | null>(null);
  useLayoutEffect(() => {
    if (caretAfter.current === null) return;
    input.current?.setSelectionRange(caretAfter.current, caretAfter.current);
    caretAfter.current = null;
  });
  const accept = (s: Suggestion) => {
    caretAfter.current = s.caret;
    setText(s.text);
    refresh(s.text, s.caret);
  };

  return (
    <form
      className="query-bar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        setOptions([]);
        navigate(withParam(params, 'query', text.trim()));
      }}
    >
      <div className="grow query-combo">
        <label className="grow">
          <span className="visually-hidden">Query</span>
          <input
            ref={input}
            name="query"
            role="combobox"
            autoComplete="off"
            spellCheck={false}
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={listId}
            aria-activedescendant={open ? optionId(active) : undefined}
            placeholder="query, e.g. service:payments -decision:settled duration>5m   ( / )"
            value={text}
            aria-invalid={bad !== null}
            aria-describedby={bad !== null ? 'query-error' : undefined}
            onChange={(e) => {
              setText(e.target.value);
              refresh(e.target.value, e.target.selectionStart ?? e.target.value.length);
            }}
            onBlur={() => {
              setOptions([]);
            }}
            onKeyDown={(e) => {
              if (!open) return;
              if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                e.preventDefault();
                const step = e.key === 'ArrowDown' ? 1 : -1;
                setActive((active + step + options.length) % options.length);
              } else if (e.key === 'Enter' || e.key === 'Tab') {
                e.preventDefault();
                accept(options[active]!);
              } else if (e.key === 'Escape') {
                e.preventDefault();
                setOptions([]);
              }
            }}
          />
        </label>
        <ul
          id={listId}
          role="listbox"
          aria-label="suggestions"
          className="suggestions"
          hidden={!open}
        >
          {options.map((s, i) => (
            <li
              key={s.label}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                // Keep the focus in the input.
                e.preventDefault();
                accept(s);
              }}
            >
              {s.label}
            </li>
          ))}
        </ul>
      </div>
      <button type="submit">Search</button>
      {bad !== null && (
        <p id="query-error" className="error" role="alert">
          ⚠ {bad.message}
          {bad.position !== undefined && (
            <>
              <br />
              <code className="caret">
                {params.get('query') ?? text}
                {'\n'}
                {' '.repeat(bad.position)}^
              </code>
            </>
          )}
        </p>
      )}
    </form>
  );
}
